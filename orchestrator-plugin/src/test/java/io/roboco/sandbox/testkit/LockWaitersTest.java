package io.roboco.sandbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

class LockWaitersTest {
    private final ReentrantLock lock = new ReentrantLock(true);
    private final CountDownLatch latch = new CountDownLatch(1);

    void takeTheLock() throws InterruptedException {
        lock.lockInterruptibly();
        lock.unlock();
    }

    void waitForTheLatch() throws InterruptedException {
        latch.await(10, TimeUnit.SECONDS);
    }

    @Test
    void countsAThreadParkedOnALockInsideTheNamedMethodOnly() throws Exception {
        lock.lock();
        Thread onLock = new Thread(() -> run(this::takeTheLock), "on-lock");
        Thread onLatch = new Thread(() -> run(this::waitForTheLatch), "on-latch");
        try {
            onLock.start();
            onLatch.start();

            assertThat(LockWaiters.await(LockWaitersTest.class.getName(), "takeTheLock", 1, Duration.ofSeconds(10)))
                    .isEqualTo(1);
            assertThat(LockWaiters.inside(LockWaitersTest.class.getName(), "takeTheLock"))
                    .containsExactly(onLock);
            assertThat(LockWaiters.inside(LockWaitersTest.class.getName(), "waitForTheLatch"))
                    .isEmpty();
            assertThat(LockWaiters.inside(LockWaitersTest.class.getName(), "someOtherMethod"))
                    .isEmpty();
        } finally {
            lock.unlock();
            latch.countDown();
            onLock.join(10_000);
            onLatch.join(10_000);
        }
        assertThat(LockWaiters.inside(LockWaitersTest.class.getName(), "takeTheLock"))
                .isEmpty();
    }

    @Test
    void failsSayingWhatItSawWhenTheWaitersDoNotArrive() {
        assertThatThrownBy(() ->
                        LockWaiters.await(LockWaitersTest.class.getName(), "takeTheLock", 1, Duration.ofMillis(50)))
                .isInstanceOf(AssertionError.class)
                .hasMessage("0 thread(s) parked on a lock inside LockWaitersTest.takeTheLock after 50 ms, expected 1");
    }

    private interface Body {
        void run() throws InterruptedException;
    }

    private static void run(Body body) {
        try {
            body.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
