package io.roboco.sandbox.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.FlagStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.FakeSettingsStore;
import io.roboco.sandbox.testkit.StubEngine;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The builder's wiring over testkit's fakes: what it is given is used, and close() leaves no sandbox behind. */
class SandboxPluginBuilderWiringTest {
    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final FakeSettingsStore store = new FakeSettingsStore();

    private SandboxPlugin plugin(SandboxPluginBuilder builder) {
        store.saveProject(new Project("shop", "Shop", List.of("postgres", "redis"), Map.of()));
        store.saveAgent(new Agent("dev-1", "developer", "shop", "T-1"));
        return builder.instanceId("orch-test")
                .runtime(runtime)
                .store(store)
                .engines(StubEngine.registry())
                .build();
    }

    @Test
    void theFlagDefaultsToTheStoredValueElseOff() throws Exception {
        try (SandboxPlugin off = plugin(SandboxPlugin.builder())) {
            assertThat(off.flagEffective()).isFalse();
            assertThat(off.requestSandbox("dev-1", null, null)).isInstanceOf(SandboxDecision.Refused.class);
        }
        store.storeFlag(FlagStore.SANDBOX_DB_ENABLED, true);
        try (SandboxPlugin on = plugin(SandboxPlugin.builder())) {
            assertThat(on.flagEffective()).isTrue();
        }
        try (SandboxPlugin overridden = plugin(SandboxPlugin.builder().featureFlag(false))) {
            assertThat(overridden.flagEffective()).isFalse();
        }
    }

    @Test
    void givenImagesAndInstanceIdReachTheContainersAndCloseReleasesWhatIsLive() throws Exception {
        SandboxPlugin plugin = plugin(SandboxPlugin.builder().featureFlag(true).image("postgres", "local/postgres:15"));
        assertThat(plugin.requestSandbox("dev-1", List.of("postgres"), Map.of()))
                .isInstanceOf(SandboxDecision.Granted.class);
        assertThat(runtime.runningCount()).as("the whole opted-in set").isEqualTo(2);
        assertThat(runtime.containerIds())
                .map(id -> runtime.request(id).orElseThrow())
                .anySatisfy(r -> assertThat(r.spec().image()).isEqualTo("local/postgres:15"))
                .allSatisfy(r -> assertThat(r.labels()).containsEntry("roboco.sandbox.instance", "orch-test"));

        plugin.close();

        assertThat(runtime.runningCount())
                .as("close() released the live sandbox")
                .isZero();
        assertThat(store.recent("dev-1", "released", 5))
                .extracting(r -> r.verb())
                .containsExactly(SandboxPluginBuilder.CLOSE_VERB);
        plugin.close();
    }
}
