package io.roboco.sandbox.settings;

import java.util.List;

/** The audit trail: appended by verbs and the janitor, read by operators. */
public interface AuditLog {
    void append(AuditRecord record);

    /**
     * Newest first, at most {@code limit} records; {@code agent} and {@code decision} filter when
     * non-null and non-blank.
     */
    List<AuditRecord> recent(String agent, String decision, int limit);
}
