package io.roboco.sandbox.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AuditTrailTest {

    /** A store that refuses writes while {@code down} is set. */
    static final class FlakyLog implements AuditLog {
        final List<AuditRecord> written = new ArrayList<>();
        boolean down;

        @Override
        public void append(AuditRecord record) {
            if (down) {
                throw new IllegalStateException("store closed");
            }
            written.add(record);
        }

        @Override
        public List<AuditRecord> recent(String agent, String decision, int limit) {
            return List.copyOf(written);
        }
    }

    private static AuditRecord record(String agent) {
        return new AuditRecord(
                Instant.EPOCH,
                agent,
                "p",
                "release_sandbox",
                "released",
                "1 container(s) removed",
                List.of("redis"),
                1);
    }

    @Test
    void aRecordTheStoreRefusesIsWrittenLaterInOrder() {
        FlakyLog log = new FlakyLog();
        AuditTrail trail = new AuditTrail(log);
        log.down = true;
        trail.append(record("a"));
        trail.append(record("b"));
        assertThat(log.written).isEmpty();
        assertThat(trail.kept()).isEqualTo(2);

        log.down = false;
        trail.append(record("c"));
        assertThat(log.written).extracting(AuditRecord::agent).containsExactly("a", "b", "c");
        assertThat(trail.kept()).isZero();
    }

    @Test
    void flushWritesWhatWasKept() {
        FlakyLog log = new FlakyLog();
        AuditTrail trail = new AuditTrail(log);
        log.down = true;
        trail.append(record("a"));
        log.down = false;
        trail.flush();
        assertThat(log.written).extracting(AuditRecord::agent).containsExactly("a");
    }

    @Test
    void keepsAtMostTheBoundDroppingTheOldest() {
        FlakyLog log = new FlakyLog();
        AuditTrail trail = new AuditTrail(log);
        log.down = true;
        for (int i = 0; i < AuditTrail.MAX_KEPT + 5; i++) {
            trail.append(record("a" + i));
        }
        assertThat(trail.kept()).isEqualTo(AuditTrail.MAX_KEPT);
        log.down = false;
        trail.flush();
        assertThat(log.written.get(0).agent()).isEqualTo("a5");
    }

    /** A store whose first write parks until {@link #open}; every write's batch size is recorded. */
    static final class GatedLog implements AuditLog {
        final List<AuditRecord> written = Collections.synchronizedList(new ArrayList<>());
        final List<Integer> batchSizes = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch parked = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);

        @Override
        public void append(AuditRecord record) {
            appendAll(List.of(record));
        }

        @Override
        public void appendAll(List<AuditRecord> records) {
            if (parked.getCount() > 0) {
                parked.countDown();
                try {
                    open.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            batchSizes.add(records.size());
            written.addAll(records);
        }

        @Override
        public List<AuditRecord> recent(String agent, String decision, int limit) {
            return List.copyOf(written);
        }
    }

    @Test
    void recordsArrivingDuringAWriteShareOneCommitAndEachCallerReturnsOnlyOnceItsRecordIsWritten() throws Exception {
        GatedLog log = new GatedLog();
        AuditTrail trail = new AuditTrail(log);
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            Future<Boolean> first = threads.submit(() -> {
                AuditRecord mine = record("first");
                trail.append(mine);
                return log.written.contains(mine);
            });
            assertThat(log.parked.await(10, TimeUnit.SECONDS))
                    .as("the first write is under way")
                    .isTrue();
            List<Future<Boolean>> later = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                String agent = "later-" + i;
                later.add(threads.submit(() -> {
                    AuditRecord mine = record(agent);
                    trail.append(mine);
                    return log.written.contains(mine); // durable before the caller goes on
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (trail.kept() < 10) {
                assertThat(System.nanoTime())
                        .as("ten records wait for the write under way")
                        .isLessThan(deadline);
                Thread.sleep(2);
            }
            assertThat(later).noneMatch(Future::isDone);

            log.open.countDown();

            assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
            for (Future<Boolean> f : later) {
                assertThat(f.get(10, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(log.batchSizes).containsExactly(1, 10);
            assertThat(log.written).hasSize(11);
            assertThat(trail.commits()).containsExactly(2L, 11L);
            assertThat(trail.kept()).isZero();
        } finally {
            log.open.countDown();
            threads.shutdownNow();
        }
    }

    @Test
    void aStoreFaultInTheMiddleOfABatchKeepsOnlyWhatWasNotWrittenAndWritesNothingTwice() {
        List<AuditRecord> written = new ArrayList<>();
        Set<Integer> failingCalls = Set.of(1, 3);
        AuditLog log = new AuditLog() {
            int calls;

            @Override
            public void append(AuditRecord record) {
                if (failingCalls.contains(++calls)) {
                    throw new IllegalStateException("store closed");
                }
                written.add(record);
            }

            @Override
            public List<AuditRecord> recent(String agent, String decision, int limit) {
                return List.of();
            }
        };
        AuditTrail trail = new AuditTrail(log);
        trail.append(record("a")); // call 1 fails: a kept
        trail.append(record("b")); // batch [a, b] by the default appendAll: a written (call 2), b fails (call 3)
        assertThat(trail.kept()).isEqualTo(1);
        trail.append(record("c")); // batch [b, c]: both written
        assertThat(written).extracting(AuditRecord::agent).containsExactly("a", "b", "c");
        assertThat(trail.kept()).isZero();
    }
}
