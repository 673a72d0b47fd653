package io.roboco.sandbox.settings;

import java.time.Instant;
import java.util.List;

/**
 * One verb call or janitor sweep. Never carries a credential.
 *
 * @param decision  {@code granted}, {@code refused}, {@code invalid_state}, {@code released}, {@code sweep}
 * @param reason    the refusal reason or other short explanation; may be empty
 * @param services  the services the call concerned
 */
public record AuditRecord(
        Instant time,
        String agent,
        String project,
        String verb,
        String decision,
        String reason,
        List<String> services,
        long durationMillis) {
    public AuditRecord {
        services = services == null ? List.of() : List.copyOf(services);
        reason = reason == null ? "" : reason;
        agent = agent == null ? "" : agent;
        project = project == null ? "" : project;
    }
}
