package io.roboco.sandbox.settings;

import java.util.List;

/** The audit trail: appended by verbs and the janitor, read by operators. */
public interface AuditLog {
    void append(AuditRecord record);

    /**
     * Appends {@code records} in order: a group commit of records that arrived together ({@link AuditTrail}). A store
     * that can should write them in one transaction, all or none (one commit, one flush); this default appends one at a
     * time and, when one fails, throws {@link PartialAppend} saying how many before it were written.
     */
    default void appendAll(List<AuditRecord> records) {
        for (int i = 0; i < records.size(); i++) {
            try {
                append(records.get(i));
            } catch (RuntimeException e) {
                throw new PartialAppend(i, e);
            }
        }
    }

    /**
     * Newest first, at most {@code limit} records; {@code agent} and {@code decision} filter when
     * non-null and non-blank.
     */
    List<AuditRecord> recent(String agent, String decision, int limit);

    /** {@link #appendAll} wrote the first {@link #written()} records, then failed with the cause. */
    final class PartialAppend extends RuntimeException {
        private final int written;

        public PartialAppend(int written, RuntimeException cause) {
            super(cause.getMessage(), cause);
            this.written = written;
        }

        public int written() {
            return written;
        }
    }
}
