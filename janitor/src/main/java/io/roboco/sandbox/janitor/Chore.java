package io.roboco.sandbox.janitor;

import java.time.Instant;

/**
 * Work the janitor does on every tick besides the orphan sweep (expiring sandboxes, pruning the audit
 * trail, the instance heartbeat). A chore that throws is logged and tried again next tick; it never
 * stops the loop or the other chores.
 */
@FunctionalInterface
public interface Chore {
    /** Does the work; returns a one-line summary worth logging, or null when there was nothing to do. */
    String run(Instant now) throws Exception;
}
