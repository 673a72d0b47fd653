package io.roboco.sandbox.readopt;

import java.time.Duration;
import java.util.List;

/**
 * What re-adoption at start found and did.
 *
 * @param readopted       sandboxes of every kind checked live and taken back (same credentials), with
 *                        {@code readoptedContainers}
 * @param unchecked       sandboxes whose owner holds the credentials, kept without a check (no sealed rows)
 * @param closed          sandboxes closed (record marked deleted, containers removed), one line each: id, owner, why
 * @param poolReadopted   idle warm-pool containers taken back into the pool
 * @param removed         containers removed that no live sandbox or pool took (dead sets, pool extras, strays)
 * @param keyWarning      the loud message about the key, or null when the key opened what it had to
 */
public record ReadoptionReport(
        int readopted,
        int readoptedContainers,
        int unchecked,
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
        return readopted + " sandbox(es) re-adopted (" + readoptedContainers + " container(s)), " + unchecked
                + " kept unchecked, "
                + closed.size() + " closed, " + poolReadopted + " pool container(s) re-adopted, " + removed
                + " container(s) removed, in " + took.toMillis() + " ms";
    }
}
