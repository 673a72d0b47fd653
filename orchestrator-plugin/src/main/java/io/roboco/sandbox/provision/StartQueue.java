package io.roboco.sandbox.provision;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Admission at the container-start seam: at most {@code limit} containers starting and becoming ready at once, the
 * rest waiting in one queue, first come first served across owners. A freed turn is handed to the head of the queue
 * (no barging), so waiting starts begin in the order they arrived and the first of a burst are ready early instead of
 * every start sharing the CPU and all of them finishing last.
 *
 * <p>Two bounds keep the queue fair and answerable: one owner (an agent, a named sandbox's owner, the warm pool) may
 * have at most {@code perOwner} starts waiting, so no one owner fills the queue; a start that waited {@code maxWait}
 * leaves the queue with a retryable {@link ProvisionException} naming its position and an estimate of the wait left
 * (position × the mean time a turn was held ÷ the limit).
 */
public final class StartQueue {
    /**
     * The queue right now.
     *
     * @param limit        turns at once
     * @param inFlight     turns held now
     * @param waiting      starts waiting now
     * @param peakWaiting  most starts waiting at once since the last {@link #resetPeak()} (or since it was made)
     * @param timedOut     starts that left the queue after {@code maxWait}
     * @param refused      starts refused because their owner already had {@code perOwner} waiting
     * @param meanTurnMillis mean time a turn was held (start + readiness), a moving average
     * @param peakInFlight most turns held at once since it was made (never above {@code limit})
     */
    public record Snapshot(
            int limit,
            int inFlight,
            int waiting,
            int peakWaiting,
            long timedOut,
            long refused,
            long meanTurnMillis,
            int peakInFlight) {}

    /** A held turn; closing it hands the turn to the next waiting start. */
    final class Turn implements AutoCloseable {
        private final long since = System.nanoTime();
        private boolean closed;

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                release(System.nanoTime() - since);
            }
        }
    }

    /** Assumed time of one turn before any turn has been measured. */
    static final Duration FIRST_ESTIMATE = Duration.ofSeconds(1);

    private final int limit;
    private final int perOwner;
    private final Duration maxWait;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    private final Map<String, Integer> waitingByOwner = new HashMap<>();
    private int inFlight;
    private int peak;
    private int peakInFlight;
    private long timedOut;
    private long refused;
    private double meanTurnNanos = FIRST_ESTIMATE.toNanos();
    private boolean measured;

    private static final class Waiter {
        final String owner;
        final Condition turn;
        boolean granted;

        Waiter(String owner, Condition turn) {
            this.owner = owner;
            this.turn = turn;
        }
    }

    StartQueue(int limit, int perOwner, Duration maxWait) {
        if (limit < 1) {
            throw new IllegalArgumentException("concurrent starts must be at least 1, was " + limit);
        }
        if (perOwner < 1) {
            throw new IllegalArgumentException("starts waiting per owner must be at least 1, was " + perOwner);
        }
        if (maxWait.isNegative() || maxWait.isZero()) {
            throw new IllegalArgumentException("the start queue's wait must be positive, was " + maxWait);
        }
        this.limit = limit;
        this.perOwner = perOwner;
        this.maxWait = maxWait;
    }

    /**
     * A turn for {@code owner}'s start of {@code what} (e.g. "postgres sandbox for agent dev-3"): at once when a turn is
     * free and nobody waits, else after the starts queued before it.
     *
     * @throws ProvisionException (retryable) when the owner already has {@code perOwner} starts waiting, or when this
     *     one waited {@code maxWait}; the message says where it stood in the queue and how long the rest may take
     */
    Turn await(String owner, String what) throws ProvisionException, InterruptedException {
        lock.lock();
        try {
            if (queue.isEmpty() && inFlight < limit) {
                inFlight++;
                peakInFlight = Math.max(peakInFlight, inFlight);
                return new Turn();
            }
            int mine = waitingByOwner.getOrDefault(owner, 0);
            if (mine >= perOwner) {
                refused++;
                throw new ProvisionException(
                        what + " was not queued to start: its owner already has " + mine + " container starts waiting"
                                + " (at most " + perOwner + " per owner, so one owner cannot fill the queue); "
                                + queueLine(queue.size() + 1, queue.size() + 1),
                        true,
                        null,
                        standing(queue.size() + 1, queue.size() + 1));
            }
            Waiter me = new Waiter(owner, lock.newCondition());
            queue.addLast(me);
            waitingByOwner.merge(owner, 1, Integer::sum);
            peak = Math.max(peak, queue.size());
            long left = maxWait.toNanos();
            try {
                while (!me.granted) {
                    if (left <= 0) {
                        int position = positionOf(me);
                        int of = queue.size();
                        leave(me);
                        timedOut++;
                        throw new ProvisionException(
                                what + " waited " + seconds(maxWait.toNanos()) + " s for its turn to start a container"
                                        + " and did not get it; " + queueLine(position, of),
                                true,
                                null,
                                standing(position, of));
                    }
                    left = me.turn.awaitNanos(left);
                }
            } catch (InterruptedException e) {
                if (me.granted) {
                    handOn(); // the turn came with the interrupt: pass it on
                } else {
                    leave(me);
                }
                throw e;
            }
            return new Turn();
        } finally {
            lock.unlock();
        }
    }

    /** The numbers now. */
    public Snapshot snapshot() {
        lock.lock();
        try {
            return new Snapshot(
                    limit,
                    inFlight,
                    queue.size(),
                    peak,
                    timedOut,
                    refused,
                    TimeUnit.NANOSECONDS.toMillis((long) meanTurnNanos),
                    peakInFlight);
        } finally {
            lock.unlock();
        }
    }

    /** Starts the peak over from the number waiting now (a bench reads the peak of one burst). */
    public void resetPeak() {
        lock.lock();
        try {
            peak = queue.size();
        } finally {
            lock.unlock();
        }
    }

    public int limit() {
        return limit;
    }

    private void release(long heldNanos) {
        lock.lock();
        try {
            // A moving average over about the last eight turns; the first measured turn replaces the assumption.
            meanTurnNanos = measured ? meanTurnNanos + (heldNanos - meanTurnNanos) / 8 : heldNanos;
            measured = true;
            handOn();
        } finally {
            lock.unlock();
        }
    }

    /** The freed turn goes to the head of the queue, or back to the free ones. Under the lock. */
    private void handOn() {
        Waiter next = queue.pollFirst();
        if (next == null) {
            inFlight--;
            return;
        }
        waitingByOwner.computeIfPresent(next.owner, (o, n) -> n == 1 ? null : n - 1);
        next.granted = true;
        next.turn.signal();
    }

    private void leave(Waiter me) {
        queue.remove(me);
        waitingByOwner.computeIfPresent(me.owner, (o, n) -> n == 1 ? null : n - 1);
    }

    private int positionOf(Waiter me) {
        int position = 1;
        for (Iterator<Waiter> it = queue.iterator(); it.hasNext(); position++) {
            if (it.next() == me) {
                return position;
            }
        }
        return position;
    }

    /** "position 3 of 40 in the start queue (4 starting now, at most 4 at once); estimated wait about 2 s; retry then". */
    private String queueLine(int position, int of) {
        QueueStanding s = standing(position, of);
        return "position " + position + " of " + of + " in the start queue (" + s.startingNow()
                + " starting now, at most " + limit + " at once); estimated wait about " + s.estimatedWaitSeconds()
                + " s; retry then";
    }

    private QueueStanding standing(int position, int of) {
        long estimate = (long) Math.ceil(position * meanTurnNanos / limit);
        return new QueueStanding(position, of, inFlight, limit, seconds(estimate));
    }

    private static long seconds(long nanos) {
        return Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L);
    }
}
