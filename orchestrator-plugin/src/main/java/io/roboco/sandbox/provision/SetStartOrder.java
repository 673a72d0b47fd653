package io.roboco.sandbox.provision;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The slowest first, within one agent's set (issue 21). A set's containers are started together, and its answer waits
 * for the last of them to be ready: the engine that takes longest (measured here: a JVM-based Mongo ≈ 2 × Postgres, 4 ×
 * Redis) decides it. Started at the same moment, the three runtime starts share the daemon and the host's two cores,
 * and the slowest engine's start is slowed by its siblings' work. So when one engine's measured start is clearly the
 * longest, its container is started first and its siblings wait until the runtime has started it (its start call
 * returned or failed; a pool claim or an abandoned start releases them too), at most {@link #MAX_WAIT}: they still
 * finish before it, and it begins its own start-up (the JVM's, the server's) a runtime start earlier.
 *
 * <p>The measurements are {@link StartTimes}, every start's runtime start to ready. Until each engine of a set has
 * been measured, or when no engine is {@value #CLEARLY_SLOWER}× slower than every other, the set starts all at once
 * ({@link #NONE}).
 */
public final class SetStartOrder {
    /** The longest a sibling waits for the slowest engine's container to be started. */
    static final Duration MAX_WAIT = Duration.ofSeconds(1);

    /** How much longer than every sibling an engine's mean start must be to go first. */
    static final double CLEARLY_SLOWER = 1.25;

    /** All at once: nobody waits. */
    public static final SetStartOrder NONE = new SetStartOrder(null, Duration.ZERO);

    private final String first;
    private final Duration maxWait;
    private final CountDownLatch firstStarted = new CountDownLatch(1);

    private SetStartOrder(String first, Duration maxWait) {
        this.first = first;
        this.maxWait = maxWait;
    }

    /** The order for a set of {@code engines}, from {@code times}: the clearly slowest first, or {@link #NONE}. */
    static SetStartOrder of(Collection<String> engines, StartTimes times) {
        return of(engines, times, MAX_WAIT);
    }

    /** {@link #of(Collection, StartTimes)} with siblings waiting at most {@code maxWait}. */
    static SetStartOrder of(Collection<String> engines, StartTimes times, Duration maxWait) {
        if (engines.size() < 2) {
            return NONE;
        }
        String slowest = null;
        double slowestMean = -1;
        double runnerUp = -1;
        for (String engine : engines) {
            double mean = times.meanNanos(engine);
            if (Double.isNaN(mean)) {
                return NONE; // not measured yet: no basis to order on
            }
            if (mean > slowestMean) {
                runnerUp = slowestMean;
                slowestMean = mean;
                slowest = engine;
            } else if (mean > runnerUp) {
                runnerUp = mean;
            }
        }
        return slowestMean >= CLEARLY_SLOWER * runnerUp ? new SetStartOrder(slowest, maxWait) : NONE;
    }

    /** The engine started first, or null when all start at once. */
    public String first() {
        return first;
    }

    /**
     * Before {@code engine}'s runtime start: a sibling of the first waits until the first's container has been started,
     * at most {@link #MAX_WAIT}; the first and an unordered set go at once.
     */
    void awaitTurn(String engine) throws InterruptedException {
        if (first != null && !first.equals(engine)) {
            firstStarted.await(maxWait.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * {@code engine} was started by the runtime, claimed from the pool, or will not be started: if it is the first,
     * its siblings go. Idempotent; safe to call for any engine.
     */
    public void started(String engine) {
        if (engine.equals(first)) {
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
