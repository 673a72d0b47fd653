package io.roboco.sandbox.lifecycle;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;

/**
 * The server-wide cap on live sandbox containers (pool containers included). A reservation is checked
 * and taken under one lock: the containers this server accounts for right now, plus those reserved and
 * not yet started, plus the new ones, must not exceed the maximum. A started container is counted twice
 * (in the ledger and in its reservation) until its reservation is released — never zero times.
 */
public final class Capacity {
    private final int max;
    private final IntSupplier live;
    private int reserved;

    /**
     * @param max  the cap, at least 1
     * @param live how many sandbox containers this server accounts for now (sandboxes, in flight, warm pool)
     */
    public Capacity(int max, IntSupplier live) {
        if (max < 1) {
            throw new IllegalArgumentException("capacity must be at least 1 container, was " + max);
        }
        this.max = max;
        this.live = live;
    }

    /** No cap (embedding without a configured capacity). */
    public static Capacity unlimited() {
        return new Capacity(Integer.MAX_VALUE, () -> 0);
    }

    /** A hold on {@code containers} slots, or empty when they do not fit. */
    public synchronized Optional<Hold> tryReserve(int containers) {
        if (containers < 0) {
            throw new IllegalArgumentException("containers must not be negative");
        }
        long used = (long) live.getAsInt() + reserved;
        if (used + containers > max) {
            return Optional.empty();
        }
        reserved += containers;
        return Optional.of(new Hold(containers));
    }

    /** Containers counted now: live plus reserved-not-yet-started. */
    public synchronized int used() {
        return (int) Math.min(Integer.MAX_VALUE, (long) live.getAsInt() + reserved);
    }

    public int max() {
        return max;
    }

    public boolean limited() {
        return max != Integer.MAX_VALUE;
    }

    /** "capacity: 40 of 40 sandbox containers live", with what a refused request needed and what to do. */
    public String refusal(int containers) {
        int used = used();
        return "capacity: " + used + " of " + max + " sandbox containers live; this request needs " + containers
                + " more. Retry when sandboxes are released or expire, or an operator raises ROBOCO_SANDBOX_MAX_CONTAINERS";
    }

    private synchronized void release(int containers) {
        reserved -= containers;
    }

    /** Reserved slots; {@link #release()} once the containers are counted live (or were never started). Idempotent. */
    public final class Hold implements Runnable {
        private final int containers;
        private final AtomicBoolean released = new AtomicBoolean();

        private Hold(int containers) {
            this.containers = containers;
        }

        public void release() {
            if (released.compareAndSet(false, true)) {
                Capacity.this.release(containers);
            }
        }

        @Override
        public void run() {
            release();
        }
    }
}
