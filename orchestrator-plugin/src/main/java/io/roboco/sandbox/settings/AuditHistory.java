package io.roboco.sandbox.settings;

import java.time.Instant;

/** Reading the audit trail page by page, and pruning what is older than the retention. */
public interface AuditHistory {

    /**
     * One page, newest first, after the query's cursor (ordered by time, then by append order).
     *
     * @throws io.roboco.sandbox.request.BadRequest when the cursor is not one this store handed out
     */
    AuditPage page(AuditQuery query);

    /** Removes at most {@code batch} of the oldest records older than {@code before}; returns how many. */
    int pruneAudit(Instant before, int batch);
}
