package io.roboco.sandbox.janitor;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler whose fixed-delay task runs only when the test says {@link #tick()}: no thread of its
 * own runs it, no wall-clock wait. What was asked of it (initial delay, delay) is kept for assertions;
 * the returned future is a real one, so cancelling it is observable.
 */
final class ManualScheduler extends ScheduledThreadPoolExecutor {
    private Runnable task;
    private long initialDelayMillis = -1;
    private long delayMillis = -1;
    private ScheduledFuture<?> future;

    ManualScheduler() {
        super(1);
    }

    @Override
    public synchronized ScheduledFuture<?> scheduleWithFixedDelay(
            Runnable command, long initialDelay, long delay, TimeUnit unit) {
        if (task != null) {
            throw new IllegalStateException("ManualScheduler holds one task; a second was scheduled");
        }
        task = command;
        initialDelayMillis = unit.toMillis(initialDelay);
        delayMillis = unit.toMillis(delay);
        future = super.schedule(() -> {}, 365, TimeUnit.DAYS);
        return future;
    }

    /**
     * Runs the scheduled task once, on the caller's thread, as the executor's thread would. A task that
     * throws would be suppressed for good by a real {@code ScheduledThreadPoolExecutor}: here the throw
     * reaches the test and fails it.
     */
    void tick() {
        Runnable t;
        synchronized (this) {
            if (task == null) {
                throw new IllegalStateException("nothing scheduled");
            }
            if (future.isCancelled()) {
                throw new IllegalStateException("the task was cancelled");
            }
            t = task;
        }
        t.run();
    }

    synchronized long initialDelayMillis() {
        return initialDelayMillis;
    }

    synchronized long delayMillis() {
        return delayMillis;
    }

    synchronized boolean cancelled() {
        return future != null && future.isCancelled();
    }
}
