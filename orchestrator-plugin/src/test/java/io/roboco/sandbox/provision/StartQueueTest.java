package io.roboco.sandbox.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The start admission on its own: turns up to the limit at once, the rest first come first served across owners,
 * bounded per owner and in time. Waiters are known to be queued from the queue's own numbers (no sleeps), and a turn
 * is held until the test closes it.
 */
class StartQueueTest {
    private static final Duration LONG = Duration.ofMinutes(5);
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void admitsUpToTheLimitAtOnceAndQueuesTheRest() throws Exception {
        StartQueue queue = new StartQueue(2, 8, LONG);
        StartQueue.Turn a = queue.await("a", "start a");
        StartQueue.Turn b = queue.await("b", "start b");
        Future<StartQueue.Turn> c = threads.submit(() -> queue.await("c", "start c"));
        awaitWaiting(queue, n -> n == 1);

        assertThat(queue.snapshot().inFlight()).isEqualTo(2);
        assertThat(c.isDone()).isFalse();
        a.close();
        StartQueue.Turn cTurn = c.get(10, TimeUnit.SECONDS);
        assertThat(queue.snapshot().inFlight()).isEqualTo(2);
        assertThat(queue.snapshot().waiting()).isZero();
        b.close();
        cTurn.close();
        assertThat(queue.snapshot().inFlight()).isZero();
        assertThat(queue.snapshot().peakWaiting()).isEqualTo(1);
    }

    @Test
    void waitingStartsGetTheirTurnInTheOrderTheyArrivedAcrossOwners() throws Exception {
        StartQueue queue = new StartQueue(1, 8, LONG);
        StartQueue.Turn first = queue.await("x", "first");
        BlockingQueue<String> order = new LinkedBlockingQueue<>();
        List<String> arrivals = List.of("a1", "b1", "a2", "c1", "b2", "a3");
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < arrivals.size(); i++) {
            String name = arrivals.get(i);
            waiters.add(threads.submit(() -> {
                try (StartQueue.Turn t = queue.await(name.substring(0, 1), name)) {
                    order.add(name);
                }
                return null;
            }));
            int queued = i + 1;
            awaitWaiting(queue, n -> n == queued); // arrival order is known before the next one comes
        }

        first.close();
        for (Future<?> w : waiters) {
            w.get(10, TimeUnit.SECONDS);
        }
        assertThat(new ArrayList<>(order)).containsExactlyElementsOf(arrivals);
        assertThat(queue.snapshot().inFlight()).isZero();
    }

    @Test
    void oneOwnerCannotFillTheQueue() throws Exception {
        StartQueue queue = new StartQueue(1, 2, LONG);
        StartQueue.Turn held = queue.await("other", "held");
        Future<StartQueue.Turn> greedy1 = threads.submit(() -> queue.await("greedy", "greedy 1"));
        awaitWaiting(queue, n -> n == 1);
        Future<StartQueue.Turn> greedy2 = threads.submit(() -> queue.await("greedy", "greedy 2"));
        awaitWaiting(queue, n -> n == 2);

        assertThatThrownBy(() -> queue.await("greedy", "postgres sandbox for agent greedy"))
                .isInstanceOfSatisfying(ProvisionException.class, e -> {
                    assertThat(e.retryable()).isTrue();
                    assertThat(e.getMessage())
                            .contains("postgres sandbox for agent greedy was not queued")
                            .contains("already has 2 container starts waiting")
                            .contains("position 3 of 3 in the start queue")
                            .contains("estimated wait about");
                    assertThat(e.queue()).hasValueSatisfying(q -> {
                        assertThat(q.position()).isEqualTo(3);
                        assertThat(q.length()).isEqualTo(3);
                        assertThat(q.limit()).isEqualTo(1);
                        assertThat(q.estimatedWaitSeconds()).isPositive();
                    });
                });
        // Another owner still gets in line behind them.
        Future<StartQueue.Turn> polite = threads.submit(() -> queue.await("polite", "polite"));
        awaitWaiting(queue, n -> n == 3);
        assertThat(queue.snapshot().refused()).isEqualTo(1);

        held.close();
        greedy1.get(10, TimeUnit.SECONDS).close();
        greedy2.get(10, TimeUnit.SECONDS).close();
        polite.get(10, TimeUnit.SECONDS).close();
        assertThat(queue.snapshot().inFlight()).isZero();
    }

    @Test
    void aStartThatWaitsPastTheBoundLeavesWithItsPositionAndAnEstimate() throws Exception {
        // The turn is held by the test for the whole wait: the outcome does not depend on how fast the machine is.
        StartQueue queue = new StartQueue(1, 8, Duration.ofMillis(200));
        StartQueue.Turn held = queue.await("a", "held");
        Future<StartQueue.Turn> ahead = threads.submit(() -> queue.await("b", "ahead"));
        awaitWaiting(queue, n -> n == 1);

        assertThatThrownBy(() -> queue.await("c", "redis sandbox for agent c"))
                .isInstanceOfSatisfying(ProvisionException.class, e -> {
                    assertThat(e.retryable()).isTrue();
                    assertThat(e.getMessage())
                            .contains("redis sandbox for agent c waited 1 s for its turn to start a container")
                            .containsPattern("position [12] of [12] in the start queue")
                            .contains("1 starting now, at most 1 at once")
                            .contains("estimated wait about");
                    assertThat(e.queue()).hasValueSatisfying(q -> {
                        assertThat(q.position()).isBetween(1, 2);
                        assertThat(q.startingNow()).isEqualTo(1);
                        assertThat(e.getMessage())
                                .contains("position " + q.position() + " of " + q.length())
                                .contains("estimated wait about " + q.estimatedWaitSeconds() + " s");
                    });
                });
        assertThat(queue.snapshot().timedOut()).isGreaterThanOrEqualTo(1);
        held.close();
        try {
            ahead.get(10, TimeUnit.SECONDS).close();
        } catch (Exception timedOutToo) {
            // "ahead" had the same bound and may have left too; either way nothing is left holding a turn.
        }
        assertThat(queue.snapshot().inFlight()).isZero();
        assertThat(queue.snapshot().waiting()).isZero();
    }

    @Test
    void anInterruptedWaiterLeavesTheQueueAndTheTurnGoesToTheNext() throws Exception {
        StartQueue queue = new StartQueue(1, 8, LONG);
        StartQueue.Turn held = queue.await("a", "held");
        Future<StartQueue.Turn> interrupted = threads.submit(() -> queue.await("b", "interrupted"));
        awaitWaiting(queue, n -> n == 1);
        Future<StartQueue.Turn> next = threads.submit(() -> queue.await("c", "next"));
        awaitWaiting(queue, n -> n == 2);

        interrupted.cancel(true);
        awaitWaiting(queue, n -> n == 1);
        held.close();
        next.get(10, TimeUnit.SECONDS).close();
        assertThat(queue.snapshot().inFlight()).isZero();
        assertThat(queue.snapshot().waiting()).isZero();
    }

    @Test
    void theEstimateFollowsTheMeasuredTurns() throws Exception {
        StartQueue queue = new StartQueue(4, 8, LONG);
        assertThat(queue.snapshot().meanTurnMillis()).isEqualTo(StartQueue.FIRST_ESTIMATE.toMillis());
        queue.await("a", "quick").close();
        assertThat(queue.snapshot().meanTurnMillis()).isLessThan(StartQueue.FIRST_ESTIMATE.toMillis());
    }

    @Test
    void refusesNonsenseBounds() {
        assertThatThrownBy(() -> new StartQueue(0, 1, LONG)).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> new StartQueue(1, 0, LONG)).hasMessageContaining("per owner");
        assertThatThrownBy(() -> new StartQueue(1, 1, Duration.ZERO)).hasMessageContaining("positive");
    }

    /** Until the number waiting satisfies {@code ready}; fails after 10 s. */
    private static void awaitWaiting(StartQueue queue, IntPredicate ready) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!ready.test(queue.snapshot().waiting())) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "start queue did not reach the expected waiting count; now " + queue.snapshot());
            }
            Thread.sleep(2);
        }
    }
}
