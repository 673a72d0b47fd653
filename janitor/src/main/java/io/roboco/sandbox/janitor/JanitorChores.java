package io.roboco.sandbox.janitor;

import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.request.DurationText;
import io.roboco.sandbox.settings.SettingsStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What the janitor does on every tick besides sweeping orphans, in order: the instance heartbeat (so
 * other servers sharing the store know this one is alive), removing expired sandboxes (each with an
 * {@code expired} audit record), and pruning audit records and deleted sandbox records older than the
 * retention, in bounded batches.
 */
final class JanitorChores {
    /** Records deleted per statement (each its own transaction, ~0.1 s on embedded H2 on a loaded 2-core machine, so a verb call waits at most that for the store), and statements per tick. */
    static final int PRUNE_BATCH = 1_000;

    static final int PRUNE_BATCHES_PER_TICK = 100;

    private JanitorChores() {}

    static void register(
            Janitor janitor, SettingsStore store, String instanceId, Sandboxes sandboxes, Duration retention) {
        janitor.withChore("heartbeat", now -> {
            store.heartbeat(instanceId, now);
            return null;
        });
        janitor.withChore("expiry", now -> {
            List<String> removed = sandboxes.removeExpired(null, Sandboxes.EXPIRE_VERB);
            return removed.isEmpty()
                    ? null
                    : "removed " + removed.size() + " expired sandbox(es): " + String.join(", ", removed);
        });
        janitor.withChore("retention", now -> prune(store, now.minus(retention), retention));
    }

    /** Prunes in batches until a batch comes back short or the per-tick bound is reached; logs the count. */
    static String prune(SettingsStore store, Instant before, Duration retention) {
        long t0 = System.nanoTime();
        int audit = 0;
        int batches = 0;
        int n;
        do {
            n = store.pruneAudit(before, PRUNE_BATCH);
            audit += n;
            batches++;
        } while (n == PRUNE_BATCH && batches < PRUNE_BATCHES_PER_TICK);
        int records = store.pruneSandboxes(before, PRUNE_BATCH);
        if (audit == 0 && records == 0) {
            return null;
        }
        String line = "pruned " + audit + " audit record(s) and " + records + " deleted sandbox record(s) older than "
                + DurationText.format(retention) + " in "
                + (System.nanoTime() - t0) / 1_000_000 + " ms"
                + (n == PRUNE_BATCH ? " (more remain; the next tick goes on)" : "");
        return line;
    }
}
