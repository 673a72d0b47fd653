package io.roboco.sandbox.provision;

import java.time.Duration;

/**
 * Warm-pool claims first (issue 21). A burst mixes claims (tens of ms each) with the container starts the same burst
 * launches (cold starts for the agents the pool could not serve, and the pool's refills: a second of the host's CPU
 * each, in the daemon, the runtime and the new server). Shortest work first: a container start waits, before it takes
 * its start turn, while claims are under way, for at most {@link #MAX_DEFER}, so the claims are not slowed by the starts
 * and the starts lose no more than that. (Claims are not limited among themselves: measured, running them at most
 * {@code cores} at once made a 20-agent burst's median later, not earlier.)
 */
final class ClaimTurns {
    /** The longest a container start waits for claims to finish. */
    static final Duration MAX_DEFER = Duration.ofMillis(300);

    private int claims; // guarded by this
    private long deferredStarts; // guarded by this

    /** A claim's turn (at once); close it when the claim is done, claimed or failed. */
    synchronized Turn claim() {
        claims++;
        return new Turn();
    }

    /**
     * Before a container start: waits while claims are under way, at most {@code max}; returns whether it waited at
     * all.
     */
    boolean awaitClaims(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (this) {
            if (claims == 0) {
                return false;
            }
            deferredStarts++;
            while (claims > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                wait(Math.max(1, left / 1_000_000));
            }
            return true;
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

    private synchronized void leave() {
        claims--;
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
