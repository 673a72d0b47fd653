package io.roboco.sandbox.manager;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.settings.ContainerRef;
import io.roboco.sandbox.settings.SandboxRecord;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The one registry of live sandboxes: a verb set and a named sandbox are entries of one kind, found the same way. */
class LiveSandboxesTest {
    private static final Instant T0 = Instant.parse("2026-12-03T12:00:00Z");
    private final LiveSandboxes live = new LiveSandboxes();

    @Test
    void aVerbSetAndANamedSandboxAreFoundTheSameWayByIdWithTheirCredentials() {
        SandboxRecord verbSet = record("sbx_v", "dev-1", SandboxRecord.DEFAULT_NAME, "c1");
        SandboxRecord named = record("sbx_n", "dev-1", "before", "c2");
        live.putRecord(verbSet);
        live.putSet(
                new AgentSandbox("dev-1", "shop", Map.of("postgres", instance("c1")), T0, "sbx_v", verbSet.expires()));
        live.hold(named, Map.of("postgres", instance("c2")));

        assertThat(live.services("sbx_v").orElseThrow().get("postgres").containerId())
                .isEqualTo("c1");
        assertThat(live.services("sbx_n").orElseThrow().get("postgres").containerId())
                .isEqualTo("c2");
        assertThat(live.set("dev-1").orElseThrow().id())
                .as("the owner's verb set is its sandbox named default")
                .isEqualTo("sbx_v");
        assertThat(live.sets()).extracting(AgentSandbox::id).containsExactly("sbx_v");
        assertThat(live.containerIds()).containsExactlyInAnyOrder("c1", "c2");
    }

    @Test
    void anUpdatedRecordMovesTheHeldSetsExpiryAndAForgottenSandboxTakesItsCredentialsAlong() {
        SandboxRecord named = record("sbx_n", "ci", "", "c2");
        live.hold(named, Map.of("postgres", instance("c2")));
        Instant later = T0.plusSeconds(7200);
        live.updateRecord(named.withExpires(later));
        assertThat(live.find("sbx_n").orElseThrow().set().expires()).isEqualTo(later);

        assertThat(live.forget("sbx_n")).isPresent();
        assertThat(live.services("sbx_n")).isEmpty();
        assertThat(live.containerIds()).isEmpty();
    }

    @Test
    void aSandboxTakenOnWithoutCredentialsCountsItsContainersButOffersNoServices() {
        live.putRecord(record("sbx_n", "ci", "kept", "c9"));
        assertThat(live.services("sbx_n")).isEmpty();
        assertThat(live.containerIds()).containsExactly("c9");
        assertThat(live.set("ci")).isEmpty();
    }

    @Test
    void twoUnnamedSandboxesOfOneOwnerAreTwoEntries() {
        live.putRecord(record("sbx_1", "ci", "", "c1"));
        live.putRecord(record("sbx_2", "ci", "", "c2"));
        assertThat(live.all()).hasSize(2);
    }

    private static SandboxRecord record(String id, String owner, String name, String container) {
        return new SandboxRecord(
                id,
                owner,
                "shop",
                name,
                SandboxRecord.Kind.of(name),
                Map.of(),
                List.of("postgres"),
                List.of(new ContainerRef("postgres", container, "n-" + container, "img", List.of(), false, "17", "")),
                "inst-a",
                T0,
                T0.plusSeconds(3600),
                T0.plusSeconds(7200 * 2),
                null,
                null);
    }

    private static ServiceInstance instance(String containerId) {
        return new ServiceInstance(
                "postgres",
                "img",
                containerId,
                "n-" + containerId,
                new Endpoint("127.0.0.1", 5432),
                new Credentials("a", "pa", "u", "pu", "d"),
                Set.of(),
                T0,
                "17");
    }
}
