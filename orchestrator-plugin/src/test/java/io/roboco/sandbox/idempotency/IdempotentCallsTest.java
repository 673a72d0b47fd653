package io.roboco.sandbox.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.IdempotencyKey;
import io.roboco.sandbox.testkit.LockWaiters;
import io.roboco.sandbox.testkit.MutableClock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class IdempotentCallsTest {
    private final MutableClock clock = MutableClock.atNow();
    private final IdempotentCalls<String> calls =
            new IdempotentCalls<>(Duration.ofMinutes(10), Duration.ofSeconds(60), 3, clock);
    private final AtomicInteger ran = new AtomicInteger();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private static final IdempotencyKey K = new IdempotencyKey("9f1c2b7e-5d3a-4c2b-9e1f-0a1b2c3d4e5f");
    private static final Map<String, Object> BODY = Map.of("owner", "job:ci", "services", List.of("postgres"));

    private IdempotentCalls.Outcome<String> create(String caller, IdempotencyKey key, Map<String, ?> body)
            throws InterruptedException {
        return calls.run(caller, key, "POST /api/sandboxes", body, a -> true, () -> "sbx_" + ran.incrementAndGet());
    }

    @Test
    void aRetryWithTheSameKeyGetsTheFirstAnswerAndNothingRunsAgain() throws Exception {
        assertThat(create("admin", K, BODY)).isEqualTo(new IdempotentCalls.Outcome.Answered<>("sbx_1", false));
        Map<String, Object> reordered = new LinkedHashMap<>();
        reordered.put("services", List.of("postgres"));
        reordered.put("owner", "job:ci");
        assertThat(create("admin", K, reordered))
                .as("the same JSON in another key order is the same request")
                .isEqualTo(new IdempotentCalls.Outcome.Answered<>("sbx_1", true));
        assertThat(ran).hasValue(1);
    }

    @Test
    void theSameKeyWithAnotherBodyOrOperationIsAConflictAndRunsNothing() throws Exception {
        create("admin", K, BODY);
        IdempotentCalls.Outcome<String> other = create("admin", K, Map.of("owner", "job:ci", "services", List.of()));
        assertThat(other).isInstanceOf(IdempotentCalls.Outcome.Conflict.class);
        assertThat(((IdempotentCalls.Outcome.Conflict<String>) other).reason())
                .contains("was first used for a POST /api/sandboxes with other arguments")
                .contains("a new request needs a new key");
        IdempotentCalls.Outcome<String> checkpoint =
                calls.run("admin", K, "POST /api/sandboxes/{id}/checkpoints", Map.of(), a -> true, () -> "x");
        assertThat(((IdempotentCalls.Outcome.Conflict<String>) checkpoint).reason())
                .contains("was first used for POST /api/sandboxes;");
        assertThat(ran).hasValue(1);
    }

    @Test
    void keysAreTheCallersOwn() throws Exception {
        create("client:job:ci", K, BODY);
        assertThat(create("client:job:other", K, BODY))
                .isEqualTo(new IdempotentCalls.Outcome.Answered<>("sbx_2", false));
    }

    @Test
    void aKeptAnswerExpires() throws Exception {
        create("admin", K, BODY);
        clock.advance(Duration.ofMinutes(10));
        assertThat(create("admin", K, BODY)).isEqualTo(new IdempotentCalls.Outcome.Answered<>("sbx_2", false));
    }

    @Test
    void anAnswerNotRememberedOrAFailureLeavesNothing() throws Exception {
        assertThat(calls.run("admin", K, "op", BODY, a -> false, () -> "refused, retry"))
                .isEqualTo(new IdempotentCalls.Outcome.Answered<>("refused, retry", false));
        assertThatThrownBy(() -> calls.run("admin", K, "op", BODY, a -> true, () -> {
                    throw new IllegalStateException("daemon gone");
                }))
                .isInstanceOf(IllegalStateException.class);
        assertThat(calls.size()).isZero();
        assertThat(calls.run("admin", K, "op", BODY, a -> true, () -> "made"))
                .isEqualTo(new IdempotentCalls.Outcome.Answered<>("made", false));
    }

    @Test
    void aRetryWhileTheFirstStillRunsWaitsForItAndReplaysItsAnswer() throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        Future<IdempotentCalls.Outcome<String>> first =
                pool.submit(() -> calls.run("admin", K, "op", BODY, a -> true, () -> {
                    firstStarted.countDown();
                    releaseFirst.await();
                    return "sbx_" + ran.incrementAndGet();
                }));
        assertThat(firstStarted.await(30, TimeUnit.SECONDS)).isTrue();
        Future<IdempotentCalls.Outcome<String>> retry =
                pool.submit(() -> calls.run("admin", K, "op", BODY, a -> true, () -> "sbx_" + ran.incrementAndGet()));
        LockWaiters.await(IdempotentCalls.class.getName(), "awaitFirst", 1, Duration.ofSeconds(30));
        assertThat(retry).isNotDone();
        releaseFirst.countDown();
        assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(new IdempotentCalls.Outcome.Answered<>("sbx_1", false));
        assertThat(retry.get(30, TimeUnit.SECONDS)).isEqualTo(new IdempotentCalls.Outcome.Answered<>("sbx_1", true));
        assertThat(ran).as("the operation ran once").hasValue(1);
    }

    @Test
    void aRetryWaitingOnAFirstCallThatKeptNothingRunsItself() throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        Future<IdempotentCalls.Outcome<String>> first =
                pool.submit(() -> calls.run("admin", K, "op", BODY, a -> !a.equals("retry me"), () -> {
                    firstStarted.countDown();
                    releaseFirst.await();
                    return "retry me";
                }));
        assertThat(firstStarted.await(30, TimeUnit.SECONDS)).isTrue();
        Future<IdempotentCalls.Outcome<String>> retry =
                pool.submit(() -> calls.run("admin", K, "op", BODY, a -> !a.equals("retry me"), () -> "made"));
        LockWaiters.await(IdempotentCalls.class.getName(), "awaitFirst", 1, Duration.ofSeconds(30));
        releaseFirst.countDown();
        assertThat(first.get(30, TimeUnit.SECONDS).toString()).contains("retry me");
        assertThat(retry.get(30, TimeUnit.SECONDS)).isEqualTo(new IdempotentCalls.Outcome.Answered<>("made", false));
    }

    @Test
    void aCallerKeepsAtMostItsShareOfKeys() throws Exception {
        for (int i = 0; i < 5; i++) {
            create("admin", new IdempotencyKey("k" + i), BODY);
        }
        assertThat(calls.size()).isEqualTo(3);
        assertThat(create("admin", new IdempotencyKey("k0"), BODY))
                .as("the oldest gave way")
                .isEqualTo(new IdempotentCalls.Outcome.Answered<>("sbx_6", false));
        assertThat(create("admin", new IdempotencyKey("k4"), BODY))
                .isEqualTo(new IdempotentCalls.Outcome.Answered<>("sbx_5", true));
    }

    @Test
    void aMalformedKeyIsRefusedNamingTheShape() {
        assertThatThrownBy(() -> IdempotencyKey.parse("idempotency_key", "has space"))
                .isInstanceOf(BadRequest.class)
                .hasMessage(
                        "'idempotency_key' must be an idempotency key (1-128 letters, digits or _ . : + / = - (a UUID"
                                + " fits)); got 'has space'");
        assertThatThrownBy(() -> new IdempotencyKey("x".repeat(129))).isInstanceOf(BadRequest.class);
    }
}
