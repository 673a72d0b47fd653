package io.roboco.sandbox.provision;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SetStartOrderTest {
    private static final long MS = 1_000_000;

    @Test
    void theClearlySlowestMeasuredEngineGoesFirst() {
        SetStartOrder.StartTimes times = new SetStartOrder.StartTimes();
        times.record("postgres", 470 * MS);
        times.record("redis", 220 * MS);
        times.record("mongo", 900 * MS);
        assertThat(SetStartOrder.slowest(List.of("postgres", "redis", "mongo"), times))
                .contains("mongo");
        assertThat(SetStartOrder.slowest(List.of("postgres", "redis"), times))
                .as("postgres is over twice redis")
                .contains("postgres");
    }

    @Test
    void allAtOnceUntilEveryEngineIsMeasuredOrWhenNoneIsClearlySlowest() {
        SetStartOrder.StartTimes times = new SetStartOrder.StartTimes();
        times.record("postgres", 470 * MS);
        assertThat(SetStartOrder.slowest(List.of("postgres", "mongo"), times)).isEmpty();
        times.record("mongo", 520 * MS); // not 1.25 x postgres
        assertThat(SetStartOrder.slowest(List.of("postgres", "mongo"), times)).isEmpty();
        assertThat(SetStartOrder.slowest(List.of("postgres"), times)).isEmpty();
    }

    @Test
    void theMeanFollowsTheLatestStarts() {
        SetStartOrder.StartTimes times = new SetStartOrder.StartTimes();
        times.record("mongo", 800 * MS);
        for (int i = 0; i < 40; i++) {
            times.record("mongo", 100 * MS);
        }
        assertThat(times.meanNanos("mongo") / MS).isBetween(99.0, 105.0);
        assertThat(times.meanNanos("redis")).isNaN();
    }

    @Test
    void aSiblingWaitsUntilTheFirstHasBeenStartedAndTheFirstNeverWaits() throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        SetStartOrder mongo = new SetStartOrder(firstStarted, true, Duration.ofMinutes(1));
        SetStartOrder postgres = new SetStartOrder(firstStarted, false, Duration.ofMinutes(1));
        SetStartOrder redis = new SetStartOrder(firstStarted, false, Duration.ofMinutes(1));
        mongo.awaitTurn(); // returns at once
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Void> sibling = CompletableFuture.runAsync(() -> {
            waiting.countDown();
            try {
                postgres.awaitTurn();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(waiting.await(5, TimeUnit.SECONDS)).isTrue();
        redis.started(); // a sibling's start does not free the others
        assertThat(sibling).isNotDone();
        mongo.started();
        sibling.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aSiblingWaitsAtMostTheBoundWhenTheFirstNeverStarts() throws Exception {
        SetStartOrder redis = new SetStartOrder(new CountDownLatch(1), false, Duration.ofMillis(200));
        long t0 = System.nanoTime();
        redis.awaitTurn();
        long waitedMs = (System.nanoTime() - t0) / MS;
        assertThat(waitedMs).isGreaterThanOrEqualTo(195);
        SetStartOrder.NONE.awaitTurn(); // never waits
    }
}
