package io.roboco.sandbox.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Guard 4 against the image of the project's major: what an image lacks is refused before anything starts. */
class MajorsGuardTest {
    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final InMemorySettingsStore store = new InMemorySettingsStore();
    private final EngineRegistry registry = EngineRegistry.defaults();
    private final ProvisionSettings settings = ProvisionSettings.defaults("test")
            .withImages(Map.of("postgres", "roboco-sandbox/postgres:15"))
            .withMajorImages(Map.of("postgres", Map.of("17", "roboco-sandbox/postgres:17")));
    private final SandboxPlugin plugin = new SandboxPlugin(
            registry,
            new SandboxManager(
                    registry,
                    new ServiceProvisioner(runtime, settings, SecretSource.secure(), Clock.systemUTC()),
                    Clock.systemUTC()),
            store,
            true,
            OrchestratorHandle.running(),
            Clock.systemUTC());

    @AfterEach
    void close() {
        plugin.close();
    }

    private SandboxDecision request(Project project, Map<String, List<String>> perCall) throws InterruptedException {
        store.saveProject(project);
        store.saveAgent(new Agent("dev-1", "developer", project.id(), "task-1"));
        return plugin.requestSandbox("dev-1", null, perCall);
    }

    @Test
    void vectorOnA15ProjectIsRefusedNaming17AndNothingStarts() throws Exception {
        Project on15 = new Project("shop", "Shop", List.of("postgres"), Map.of(), Map.of("postgres", "15"));
        SandboxDecision decision = request(on15, Map.of("postgres", List.of("vector")));

        assertThat(decision).isInstanceOfSatisfying(SandboxDecision.Refused.class, r -> {
            assertThat(r.retryable()).isFalse();
            assertThat(r.reason())
                    .contains(
                            "'vector'",
                            "PostgreSQL 15",
                            "roboco-sandbox/postgres:15",
                            "offered by postgres 17",
                            "sandbox_versions to {\"postgres\":\"17\"}");
        });
        assertThat(runtime.startCount()).isZero();
        assertThat(runtime.containerIds()).isEmpty();
    }

    @Test
    void aStandingVectorOnTheDefaultImageIsRefusedToo() throws Exception {
        Project standing = new Project("shop", "Shop", List.of("postgres"), Map.of("postgres", List.of("vector")));
        SandboxDecision decision = request(standing, Map.of());

        assertThat(decision)
                .isInstanceOfSatisfying(
                        SandboxDecision.Refused.class,
                        r -> assertThat(r.reason())
                                .contains(
                                        "PostgreSQL 15 (image roboco-sandbox/postgres:15)", "offered by postgres 17"));
        assertThat(runtime.startCount()).isZero();
    }

    @Test
    void anUnknownMajorIsRefusedNamingTheKnownOnes() throws Exception {
        Project on12 = new Project("shop", "Shop", List.of("postgres"), Map.of(), Map.of("postgres", "12"));
        assertThat(request(on12, Map.of()))
                .isInstanceOfSatisfying(
                        SandboxDecision.Refused.class,
                        r -> assertThat(r.reason()).contains("sandbox_versions", "no major '12'", "15, 16, 17"));
        assertThat(runtime.startCount()).isZero();
    }

    @Test
    void anOfferedFeatureOnTheRightMajorPassesTheGuards() throws Exception {
        Project on17 = new Project("shop", "Shop", List.of("postgres"), Map.of(), Map.of("postgres", "17"));
        store.saveProject(on17);
        Guards guards = new Guards(registry, settings);
        assertThat(guards.allowed("dev-17", on17, List.of(), Map.of("postgres", List.of("vector"))))
                .isInstanceOf(SandboxRequest.Validation.Valid.class);
    }
}
