package io.roboco.sandbox.provision;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Claims first: turns held by the test, no sleeps. */
class ClaimTurnsTest {
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void aStartDoesNotWaitWhenNoClaimRuns() throws Exception {
        ClaimTurns turns = new ClaimTurns();
        assertThat(turns.awaitClaims(Duration.ofMinutes(1))).isFalse();
        assertThat(turns.deferredStarts()).isZero();
    }

    @Test
    void aStartWaitsWhileAClaimRunsAndGoesOnWhenItEnds() throws Exception {
        ClaimTurns turns = new ClaimTurns();
        ClaimTurns.Turn claim = turns.claim();
        Future<Boolean> start = threads.submit(() -> turns.awaitClaims(Duration.ofMinutes(1)));
        awaitDeferred(turns, 1);
        assertThat(start.isDone()).isFalse();

        claim.close();

        assertThat(start.get(10, TimeUnit.SECONDS)).as("it waited").isTrue();
        assertThat(turns.claims()).isZero();
    }

    @Test
    void aStartWaitsAtMostItsBoundForClaimsThatDoNotEnd() throws Exception {
        ClaimTurns turns = new ClaimTurns();
        try (ClaimTurns.Turn claim = turns.claim()) {
            assertThat(turns.awaitClaims(Duration.ofMillis(1))).isTrue(); // back although the claim still runs
            assertThat(turns.claims()).isEqualTo(1);
        }
    }

    @Test
    void aStartWaitsUntilTheLastOfSeveralClaimsEndsAndAClaimClosedTwiceCountsOnce() throws Exception {
        ClaimTurns turns = new ClaimTurns();
        ClaimTurns.Turn first = turns.claim();
        ClaimTurns.Turn second = turns.claim();
        Future<Boolean> start = threads.submit(() -> turns.awaitClaims(Duration.ofMinutes(1)));
        awaitDeferred(turns, 1);

        first.close();
        first.close();
        assertThat(turns.claims()).isEqualTo(1);
        assertThat(start.isDone()).as("one claim still runs").isFalse();

        second.close();
        assertThat(start.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(turns.claims()).isZero();
    }

    @Test
    void aStartRightAfterAClaimEndedWaitsOutTheQuietTimeButNotOnceItHasPassed() throws Exception {
        Duration quiet = Duration.ofMillis(200);
        ClaimTurns turns = new ClaimTurns(quiet);
        turns.claim().close();
        long t0 = System.nanoTime();

        assertThat(turns.awaitClaims(Duration.ofMinutes(1))).as("it waited").isTrue();

        // A lower bound only: the start may not go before the quiet time is out, however fast the machine.
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(quiet.minusMillis(1));
        assertThat(turns.awaitClaims(Duration.ofMinutes(1)))
                .as("the quiet time has passed")
                .isFalse();
    }

    @Test
    void aClaimBegunWhileAStartWaitsOutTheQuietTimeHoldsItUntilThatClaimEnds() throws Exception {
        Duration quiet = Duration.ofMillis(100);
        ClaimTurns turns = new ClaimTurns(quiet);
        turns.claim().close();
        Future<Boolean> start = threads.submit(() -> turns.awaitClaims(Duration.ofMinutes(1)));
        awaitDeferred(turns, 1);
        ClaimTurns.Turn next = turns.claim();

        Thread.sleep(quiet.multipliedBy(3).toMillis()); // the first quiet time is long out: only the claim holds it
        assertThat(start.isDone()).as("a claim runs").isFalse();

        next.close();
        assertThat(start.get(10, TimeUnit.SECONDS)).isTrue();
    }

    private static void awaitDeferred(ClaimTurns turns, long n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (turns.deferredStarts() < n) {
            assertThat(System.nanoTime()).as("the start is waiting").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
