package io.roboco.sandbox.provision;

import java.time.Duration;

/**
 * Warm-pool claims first (issue 21). A burst mixes claims (tens of ms each) with the container starts the same burst
 * launches (cold starts for the agents the pool could not serve, and the pool's refills: a second of the host's CPU
 * each, in the daemon, the runtime and the new server). Shortest work first: a container start waits, before it takes
 * its start turn, while claims are under way and until none has run for {@link #QUIET_AFTER}, for at most
 * {@link #MAX_DEFER} in all, so the claims are not slowed by the starts and the starts lose no more than that. The
 * quiet time matters because a burst's claims do not overlap all the time: each also waits for its reservation and its
 * settlement in the store, so the count drops to zero between two of them, and a start let in there (the refill the
 * first claim began, above all) took the CPU of a whole claim burst's tail. (Claims are not limited among themselves:
 * measured, running them at most {@code cores} at once made a 20-agent burst's median later, not earlier.)
 */
final class ClaimTurns {
    /** The longest a container start waits for claims to finish. */
    static final Duration MAX_DEFER = Duration.ofMillis(300);

    /** How long after the last claim ended a start still waits (the next claim of a burst comes sooner). */
    static final Duration QUIET_AFTER = Duration.ofMillis(50);

    private final long quietAfterNanos;
    private int claims; // guarded by this
    private long deferredStarts; // guarded by this
    private long lastEnded; // System.nanoTime() when a claim last ended; guarded by this
    private boolean anyEnded; // guarded by this

    ClaimTurns() {
        this(QUIET_AFTER);
    }

    /** With its own quiet time (tests). */
    ClaimTurns(Duration quietAfter) {
        this.quietAfterNanos = quietAfter.toNanos();
    }

    /** A claim's turn (at once); close it when the claim is done, claimed or failed. */
    synchronized Turn claim() {
        claims++;
        return new Turn();
    }

    /**
     * Before a container start: waits while claims are under way or one ended less than the quiet time ago, at most
     * {@code max}; returns whether it waited at all.
     */
    boolean awaitClaims(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (this) {
            if (claims == 0 && quietLeft(System.nanoTime()) <= 0) {
                return false;
            }
            deferredStarts++;
            while (true) {
                long now = System.nanoTime();
                long left = deadline - now;
                long wait = claims > 0 ? left : Math.min(left, quietLeft(now));
                if (left <= 0 || wait <= 0) {
                    return true;
                }
                wait(Math.max(1, wait / 1_000_000));
            }
        }
    }

    /** Claims under way right now. */
    synchronized int claims() {
        return claims;
    }

    /** Container starts that waited for claims so far. */
    synchronized long deferredStarts() {
        return deferredStarts;
    }

    /** How much of the quiet time after the last claim is left at {@code now} (0 or less: none). */
    private long quietLeft(long now) {
        return anyEnded ? lastEnded + quietAfterNanos - now : 0;
    }

    private synchronized void leave() {
        claims--;
        lastEnded = System.nanoTime();
        anyEnded = true;
        if (claims == 0) {
            notifyAll();
        }
    }

    /** A claim under way. */
    final class Turn implements AutoCloseable {
        private boolean closed;

        @Override
        public void close() {
            synchronized (ClaimTurns.this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            leave();
        }
    }
}
