package io.roboco.sandbox.readopt;

import java.time.Duration;
import java.util.List;

/**
 * What re-adoption at start found and did.
 *
 * @param readopted       verb sets taken back into the cache (same credentials), with {@code readoptedContainers}
 * @param namedKept       named sandboxes checked live (or kept unchecked: no sealed rows) and taken on
 * @param closed          sandboxes closed (record marked deleted, containers removed), one line each: id, owner, why
 * @param poolReadopted   idle warm-pool containers taken back into the pool
 * @param removed         containers removed that no live sandbox or pool took (dead sets, pool extras, strays)
 * @param keyWarning      the loud message about the key, or null when the key opened what it had to
 */
public record ReadoptionReport(
        int readopted,
        int readoptedContainers,
        int namedKept,
        List<String> closed,
        int poolReadopted,
        int removed,
        String keyWarning,
        Duration took) {
    public ReadoptionReport {
        closed = List.copyOf(closed);
    }

    /** One line for the log. */
    public String summary() {
        return readopted + " sandbox(es) re-adopted (" + readoptedContainers + " container(s)), " + namedKept
                + " named kept, "
                + closed.size() + " closed, " + poolReadopted + " pool container(s) re-adopted, " + removed
                + " container(s) removed, in " + took.toMillis() + " ms";
    }
}
