package io.roboco.sandbox.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class OutcomeTest {

    @Test
    void envelopesFollowTheProjectsShape() {
        SchemaList schemas =
                new SchemaList(Untrusted.of("00", List.of(new SchemaList.Schema("public", "agent"))), 1, false);
        assertThat(InspectJson.write(new Outcome.Ok<>(schemas).toEnvelope("list_schemas")))
                .startsWith(
                        "{\"ok\":true,\"tool\":\"list_schemas\",\"evidence\":" + "{\"data\":{\"tag\":\"00\",\"note\":");
        assertThat(new Outcome.Refused<SchemaList>("denied_column", List.of("a", "b")).toEnvelope("run_readonly_query"))
                .containsEntry("error", "refused")
                .containsEntry("rule", "denied_column")
                .containsEntry("reason", "a; b")
                .containsEntry("retryable", false);
        assertThat(new Outcome.Failed<SchemaList>("down", "08001", Untrusted.of("11", "refused"), true)
                        .toEnvelope("list_schemas"))
                .containsEntry("error", "unavailable")
                .containsEntry("retryable", true)
                .containsEntry("sql_state", "08001");
    }
}
