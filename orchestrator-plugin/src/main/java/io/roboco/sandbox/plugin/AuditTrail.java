package io.roboco.sandbox.plugin;

import io.roboco.sandbox.settings.AuditLog;
import io.roboco.sandbox.settings.AuditRecord;
import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes audit records so that a store fault never loses one and never fails the verb: a record the
 * store refuses is kept (up to {@value #MAX_KEPT}, oldest dropped first, with a count in the log) and
 * written before the next one, or at {@link #flush()} (the plugin's close). Thread-safe.
 */
final class AuditTrail {
    private static final Logger log = LoggerFactory.getLogger(AuditTrail.class);
    static final int MAX_KEPT = 10_000;

    private final AuditLog store;
    private final Deque<AuditRecord> unwritten = new ArrayDeque<>();
    private long dropped;

    AuditTrail(AuditLog store) {
        this.store = store;
    }

    void append(AuditRecord record) {
        synchronized (unwritten) {
            unwritten.addLast(record);
            if (unwritten.size() > MAX_KEPT) {
                unwritten.removeFirst();
                dropped++;
            }
        }
        flush();
    }

    /** Writes every kept record, oldest first; stops at the first store fault (they stay kept). */
    void flush() {
        synchronized (unwritten) {
            while (!unwritten.isEmpty()) {
                AuditRecord next = unwritten.peekFirst();
                try {
                    store.append(next);
                } catch (RuntimeException e) {
                    log.warn(
                            "could not write audit record for {} {} ({} kept for a retry): {}",
                            next.verb(),
                            next.agent(),
                            unwritten.size(),
                            e.getMessage());
                    return;
                }
                unwritten.removeFirst();
            }
            if (dropped > 0) {
                log.error(
                        "{} audit record(s) were dropped: the store refused writes while more than {} were kept",
                        dropped,
                        MAX_KEPT);
                dropped = 0;
            }
        }
    }

    int kept() {
        synchronized (unwritten) {
            return unwritten.size();
        }
    }
}
