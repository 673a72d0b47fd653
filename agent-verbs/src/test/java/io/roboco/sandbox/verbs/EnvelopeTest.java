package io.roboco.sandbox.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.plugin.SandboxDecision;
import io.roboco.sandbox.provision.QueueStanding;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvelopeTest {

    @Test
    void grantedEnvelopeCarriesOneEntryPerServiceWithFeaturesUnderTheEngineKey() {
        Envelope e = Envelope.of(new SandboxDecision.Granted(
                List.of(
                        new SandboxDecision.Grant(
                                "postgres",
                                Map.of("ROBOCO_TEST_DB_HOST", "127.0.0.1"),
                                "available_extensions",
                                List.of("pg_trgm")),
                        new SandboxDecision.Grant(
                                "mongo", Map.of("ROBOCO_TEST_MONGO_HOST", "127.0.0.1"), null, List.of())),
                false));
        assertThat(e.asMap())
                .containsOnlyKeys("ok", "verb", "evidence")
                .containsEntry("ok", true)
                .containsEntry("verb", "request_sandbox");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> sandboxes =
                (List<Map<String, Object>>) ((Map<String, Object>) e.asMap().get("evidence")).get("sandboxes");
        assertThat(sandboxes.get(0))
                .containsOnlyKeys("service", "env", "available_extensions")
                .containsEntry("available_extensions", List.of("pg_trgm"));
        assertThat(sandboxes.get(1)).containsOnlyKeys("service", "env").containsEntry("service", "mongo");
    }

    @Test
    void eachServiceEntryCarriesItsContainersLimits() {
        Envelope e = Envelope.of(new SandboxDecision.Granted(
                List.of(new SandboxDecision.Grant(
                        "postgres",
                        Map.of("ROBOCO_TEST_DB_HOST", "127.0.0.1"),
                        "available_extensions",
                        List.of(),
                        Map.of("cpus", 2, "memory", "1g", "data_size", "512m"))),
                false));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> sandboxes =
                (List<Map<String, Object>>) ((Map<String, Object>) e.asMap().get("evidence")).get("sandboxes");
        assertThat(sandboxes.get(0)).containsKey("limits");
        assertThat(List.copyOf(((Map<?, ?>) sandboxes.get(0).get("limits")).keySet()))
                .isEqualTo(List.of("memory", "data_size", "cpus"));
    }

    @Test
    void refusedEnvelopeHasReasonAndRetryable() {
        Envelope e = Envelope.of(new SandboxDecision.Refused("flag off", false));
        assertThat(e.asMap())
                .containsExactly(
                        Map.entry("ok", false),
                        Map.entry("error", "refused"),
                        Map.entry("reason", "flag off"),
                        Map.entry("retryable", false));
        assertThat(Envelope.of(new SandboxDecision.Refused("starting", true)).asMap())
                .containsEntry("retryable", true);
    }

    @Test
    void aStartQueueRefusalCarriesItsQueuePositionAndEstimateAsFields() {
        Envelope e = Envelope.of(new SandboxDecision.InvalidState(
                "postgres sandbox for agent dev-1 waited 120 s ...; position 37 of 80 in the start queue",
                true,
                "provisioning",
                new QueueStanding(37, 80, 4, 4, 25)));
        assertThat(e.asMap())
                .containsEntry("ok", false)
                .containsEntry("error", "invalid_state")
                .containsEntry("retryable", true)
                .containsEntry("queue_position", 37)
                .containsEntry("queue_length", 80)
                .containsEntry("estimated_wait_seconds", 25L);
        assertThat(Envelope.of(new SandboxDecision.InvalidState("not ready in 30s", true))
                        .asMap())
                .doesNotContainKeys("queue_position", "queue_length", "estimated_wait_seconds");
    }

    @Test
    void invalidStateEnvelopeKeepsRetryable() {
        Envelope e = Envelope.of(new SandboxDecision.InvalidState("not ready in 30s", true));
        assertThat(e.asMap())
                .containsEntry("ok", false)
                .containsEntry("error", "invalid_state")
                .containsEntry("retryable", true);
        assertThat(e.error()).isEqualTo("invalid_state");
    }

    @Test
    void releaseEnvelopeReportsRemovedCount() {
        assertThat(Envelope.ok("release_sandbox", Map.of("removed", 2)).asMap())
                .containsEntry("ok", true)
                .containsEntry("evidence", Map.of("removed", 2));
    }

    @Test
    void toStringNeverPrintsTheBody() {
        Envelope e = Envelope.of(new SandboxDecision.Granted(
                List.of(new SandboxDecision.Grant(
                        "postgres", Map.of("ROBOCO_TEST_DB_PASSWORD", "s3cret"), "available_extensions", List.of())),
                false));
        assertThat(e.toString()).doesNotContain("s3cret").contains("request_sandbox");
    }
}
