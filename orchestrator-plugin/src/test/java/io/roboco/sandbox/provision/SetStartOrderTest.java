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
        assertThat(SetStartOrder.of(List.of("postgres", "redis", "mongo"), times)
                        .first())
                .isEqualTo("mongo");
        assertThat(SetStartOrder.of(List.of("postgres", "redis"), times).first())
                .as("postgres is over twice redis")
                .isEqualTo("postgres");
    }

    @Test
    void allAtOnceUntilEveryEngineIsMeasuredOrWhenNoneIsClearlySlowest() {
        SetStartOrder.StartTimes times = new SetStartOrder.StartTimes();
        times.record("postgres", 470 * MS);
        assertThat(SetStartOrder.of(List.of("postgres", "mongo"), times)).isSameAs(SetStartOrder.NONE);
        times.record("mongo", 520 * MS); // not 1.25 x postgres
        assertThat(SetStartOrder.of(List.of("postgres", "mongo"), times)).isSameAs(SetStartOrder.NONE);
        assertThat(SetStartOrder.of(List.of("postgres"), times)).isSameAs(SetStartOrder.NONE);
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
        SetStartOrder order = ordered("mongo", Duration.ofMinutes(1));
        order.awaitTurn("mongo"); // returns at once
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Void> sibling = CompletableFuture.runAsync(() -> {
            waiting.countDown();
            try {
                order.awaitTurn("postgres");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(waiting.await(5, TimeUnit.SECONDS)).isTrue();
        order.started("postgres"); // a sibling's release does not free the others
        assertThat(sibling).isNotDone();
        order.started("mongo");
        sibling.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aSiblingWaitsAtMostTheBoundWhenTheFirstNeverStarts() throws Exception {
        SetStartOrder order = ordered("mongo", Duration.ofMillis(200));
        long t0 = System.nanoTime();
        order.awaitTurn("redis");
        long waitedMs = (System.nanoTime() - t0) / MS;
        assertThat(waitedMs).isGreaterThanOrEqualTo(195);
        SetStartOrder.NONE.awaitTurn("redis"); // never waits
    }

    private static SetStartOrder ordered(String slowest, Duration maxWait) {
        SetStartOrder.StartTimes times = new SetStartOrder.StartTimes();
        times.record(slowest, 900 * MS);
        times.record("postgres", 400 * MS);
        times.record("redis", 200 * MS);
        SetStartOrder order = SetStartOrder.of(List.of(slowest, "postgres", "redis"), times, maxWait);
        assertThat(order.first()).isEqualTo(slowest);
        return order;
    }
}
