package io.roboco.sandbox.provision;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The slowest first, within one agent's set (issue 21). A set's containers are started together, and its answer waits
 * for the last of them to be ready: the engine that takes longest (measured here: a JVM-based Mongo ≈ 2 × Postgres, 4 ×
 * Redis) decides it. Started at the same moment, the runtime starts share the daemon and the host's cores, and the
 * slowest engine's start is slowed by its siblings' work. So when one engine's measured start is clearly the longest
 * ({@link #slowest}), its container is started first and its siblings wait, before their start turn, until the runtime
 * has started it (its start call returned or failed; a pool claim or an abandoned start releases them too), at most
 * {@link #MAX_WAIT}: they still finish before it, and it begins its own start-up (the JVM's, the server's) a runtime
 * start earlier.
 *
 * <p>One start's place in its set: the first counts the set's latch down once started, a sibling awaits it. The
 * measurements are {@link StartTimes}, every start's runtime start to ready. Until each engine of a set has been
 * measured, or when no engine is {@value #CLEARLY_SLOWER}× slower than every other, the set starts all at once.
 */
final class SetStartOrder {
    /** The longest a sibling waits for the slowest engine's container to be started. */
    static final Duration MAX_WAIT = Duration.ofSeconds(1);

    /** How much longer than every sibling an engine's mean start must be to go first. */
    static final double CLEARLY_SLOWER = 1.25;

    /** A start outside any ordered set: nobody waits for it, it waits for nobody. */
    static final SetStartOrder NONE = new SetStartOrder(new CountDownLatch(0), true, Duration.ZERO);

    private final CountDownLatch firstStarted;
    private final boolean first;
    private final Duration maxWait;

    /**
     * @param firstStarted the set's latch, counted down once its first engine's container has been started
     * @param first        whether this start is that first one
     */
    SetStartOrder(CountDownLatch firstStarted, boolean first, Duration maxWait) {
        this.firstStarted = firstStarted;
        this.first = first;
        this.maxWait = maxWait;
    }

    /** The engine of {@code engines} to start first: the clearly slowest one measured so far, or none. */
    static Optional<String> slowest(Collection<String> engines, StartTimes times) {
        if (engines.size() < 2) {
            return Optional.empty();
        }
        String slowest = null;
        double slowestMean = -1;
        double runnerUp = -1;
        for (String engine : engines) {
            double mean = times.meanNanos(engine);
            if (Double.isNaN(mean)) {
                return Optional.empty(); // not measured yet: no basis to order on
            }
            if (mean > slowestMean) {
                runnerUp = slowestMean;
                slowestMean = mean;
                slowest = engine;
            } else if (mean > runnerUp) {
                runnerUp = mean;
            }
        }
        return slowestMean >= CLEARLY_SLOWER * runnerUp ? Optional.of(slowest) : Optional.empty();
    }

    /** Before the runtime start: a sibling waits until the first has been started, at most the bound; the first goes. */
    void awaitTurn() throws InterruptedException {
        if (!first) {
            firstStarted.await(maxWait.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** The runtime started this start's container, or it will not start one: the first releases its siblings. */
    void started() {
        if (first) {
            firstStarted.countDown();
        }
    }

    /** Mean runtime-start-to-ready time per engine, a moving average over about the last eight starts. */
    static final class StartTimes {
        private final Map<String, Double> means = new ConcurrentHashMap<>();

        void record(String engine, long nanos) {
            means.merge(engine, (double) nanos, (mean, latest) -> mean + (latest - mean) / 8);
        }

        /** NaN until {@code engine} has been measured. */
        double meanNanos(String engine) {
            return means.getOrDefault(engine, Double.NaN);
        }
    }
}
