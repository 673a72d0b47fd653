package io.roboco.sandbox.janitor;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.settings.AuditLog;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class JanitorTest {
    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final Set<String> claimed = ConcurrentHashMap.newKeySet();
    private final InMemorySettingsStore audit = new InMemorySettingsStore();
    private final Janitor janitor =
            new Janitor(runtime, "me", () -> claimed, audit, Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofMinutes(2));

    private String container(String name, Map<String, String> labels) {
        ContainerSpec spec = new ContainerSpec("img:1", Map.of(), List.of("run"), "/data", 1);
        return runtime.start(new RunRequest(name, spec, labels, Limits.sandboxDefaults(), NetworkMode.host(), Set.of()))
                .id();
    }

    private String sandbox(String name, String instance, Duration age) {
        return container(
                name,
                SandboxLabels.forService(
                        instance, "dev-1", "shop", "postgres", NOW.minus(age).getEpochSecond()));
    }

    @Test
    void removesUnclaimedSandboxesOlderThanTheGraceWindow() {
        String orphan = sandbox("orphan", "me", Duration.ofMinutes(5));

        SweepReport report = janitor.sweepOnce();

        assertThat(report.removedIds()).containsExactly(orphan);
        assertThat(report.removed().get(0))
                .extracting(SweepReport.Removal::agent, SweepReport.Removal::service)
                .containsExactly("dev-1", "postgres");
        assertThat(runtime.containerIds()).isEmpty();
        assertThat(report.summary()).isEqualTo("startup sweep: found 1, removed 1, kept 0");
    }

    @Test
    void keepsWhatIsClaimedYoungOrCreatedAfterTheSweepBegan() {
        String live = sandbox("live", "me", Duration.ofMinutes(5));
        claimed.add(live);
        String young = sandbox("young", "me", Duration.ofSeconds(30));
        String future = sandbox("future", "me", Duration.ofSeconds(-5));

        SweepReport report = janitor.sweepOnce();

        assertThat(report.removed()).isEmpty();
        assertThat(report.kept())
                .extracting(SweepReport.Kept::containerId)
                .containsExactlyInAnyOrder(live, young, future);
        assertThat(report.kept())
                .extracting(SweepReport.Kept::reason)
                .anyMatch(r -> r.equals("in use"))
                .anyMatch(r -> r.startsWith("inside the grace window"))
                .anyMatch(r -> r.equals("created after the sweep began"));
        assertThat(report.summary())
                .isEqualTo(
                        "startup sweep: found 3, removed 0, kept 3 (created after the sweep began: 1, in use: 1, inside the grace window: 1)");
    }

    @Test
    void aContainerClaimedWhileTheSweepRunsIsKept() {
        String handedOut = sandbox("handed-out", "me", Duration.ofMinutes(5));
        // The first read of the claimed set misses it; by the time the sweep would remove it, it is claimed.
        AtomicInteger reads = new AtomicInteger();
        Janitor racing = new Janitor(
                runtime,
                "me",
                () -> reads.getAndIncrement() == 0 ? Set.of() : Set.of(handedOut),
                audit,
                Clock.fixed(NOW, ZoneOffset.UTC),
                Duration.ofMinutes(2));

        SweepReport report = racing.sweepOnce();

        assertThat(report.removed()).isEmpty();
        assertThat(runtime.containerIds()).containsExactly(handedOut);
    }

    @Test
    void theStartupSweepIsAuditedEvenWhenItFindsNothingAndRemovalsAreAuditedPerAgent() {
        SweepReport startup = janitor.sweepOnce();

        assertThat(startup.startup()).isTrue();
        assertThat(startup.summary()).isEqualTo("startup sweep: found 0, removed 0, kept 0");
        assertThat(audit.recent(null, "sweep", 1000))
                .extracting(r -> r.reason())
                .containsExactly(startup.summary());

        sandbox("orphan", "me", Duration.ofMinutes(10));
        SweepReport removal = janitor.sweepOnce();

        assertThat(removal.startup()).isFalse();
        assertThat(removal.removed()).hasSize(1);
        assertThat(audit.recent("dev-1", "removed", 10)).singleElement().satisfies(r -> {
            assertThat(r.verb()).isEqualTo(Janitor.AUDIT_VERB);
            assertThat(r.project()).isEqualTo("shop");
            assertThat(r.services()).containsExactly("postgres");
            assertThat(r.reason()).startsWith("orphan: orphan removed: unclaimed, age 600s >= grace 120s");
        });
        assertThat(audit.recent(null, "sweep", 1000)).hasSize(2);

        // A quiet sweep (it ran: here is its report) after the first one is not audited.
        SweepReport quiet = janitor.sweepOnce();

        assertThat(quiet.ok()).isTrue();
        assertThat(quiet.summary()).isEqualTo("found 0, removed 0, kept 0");
        assertThat(audit.recent(null, "sweep", 1000)).hasSize(2);
    }

    @Test
    void theScheduleRunsTheStartupSweepAtOnceThenEveryTickUntilClosed() {
        ManualScheduler scheduler = new ManualScheduler();
        try {
            janitor.start(scheduler, Duration.ofSeconds(30));

            assertThat(scheduler.initialDelayMillis()).isZero();
            assertThat(scheduler.delayMillis()).isEqualTo(30_000);
            scheduler.tick();
            assertThat(audit.recent(null, "sweep", 10))
                    .extracting(r -> r.reason())
                    .containsExactly("startup sweep: found 0, removed 0, kept 0");
            String orphan = sandbox("orphan", "me", Duration.ofMinutes(10));
            scheduler.tick();
            assertThat(runtime.containerIds()).doesNotContain(orphan);
            assertThat(audit.recent("dev-1", "removed", 10)).hasSize(1);

            janitor.close();

            assertThat(scheduler.cancelled()).isTrue();
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void anAuditStoreThatFailsNeverStopsTheSchedule() {
        AtomicInteger attempts = new AtomicInteger();
        AuditLog broken = new AuditLog() {
            @Override
            public void append(AuditRecord record) {
                attempts.incrementAndGet();
                throw new IllegalStateException("audit store down");
            }

            @Override
            public List<AuditRecord> recent(String agent, String decision, int limit) {
                return List.of();
            }
        };
        Janitor j = new Janitor(
                runtime, "me", () -> claimed, broken, Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofMinutes(2));
        ManualScheduler scheduler = new ManualScheduler();
        try {
            j.start(scheduler, Duration.ofSeconds(30));
            for (int round = 0; round < 3; round++) {
                String orphan = sandbox("orphan-" + round, "me", Duration.ofMinutes(10));
                int before = attempts.get();

                scheduler.tick(); // throws (and fails the test) if anything escaped the tick

                assertThat(runtime.containerIds()).as("round %d", round).doesNotContain(orphan);
                assertThat(attempts.get())
                        .as("round %d: the removal and the sweep were offered to the audit", round)
                        .isEqualTo(before + 2);
            }
        } finally {
            j.close();
            scheduler.shutdownNow();
        }
    }

    @Test
    void theScheduleSurvivesFailedSweepsAndRecordsRemovalsInTheAudit() {
        runtime.setDaemonReachable(false);
        ManualScheduler scheduler = new ManualScheduler();
        try {
            janitor.start(scheduler, Duration.ofSeconds(30));
            scheduler.tick();
            runtime.setDaemonReachable(true);
            String orphan = sandbox("orphan", "me", Duration.ofMinutes(10));
            scheduler.tick();

            assertThat(runtime.containerIds()).doesNotContain(orphan);
            assertThat(audit.recent(null, "sweep", 100))
                    .extracting(r -> r.reason())
                    .anyMatch(r -> r.startsWith("startup sweep: sweep failed"))
                    .anyMatch(r -> r.contains("removed 1"));
        } finally {
            janitor.close();
            scheduler.shutdownNow();
        }
    }

    @Test
    void anUnexpectedErrorInASweepNeverEscapesTheTickAndTheNextTickSweeps() {
        AtomicBoolean fail = new AtomicBoolean(true);
        Janitor j = new Janitor(
                runtime,
                "me",
                () -> {
                    if (fail.get()) {
                        throw new StackOverflowError("the claimed set blew up");
                    }
                    return claimed;
                },
                audit,
                Clock.fixed(NOW, ZoneOffset.UTC),
                Duration.ofMinutes(2));
        ManualScheduler scheduler = new ManualScheduler();
        try {
            j.start(scheduler, Duration.ofSeconds(30));
            String orphan = sandbox("orphan", "me", Duration.ofMinutes(10));

            scheduler.tick();

            assertThat(runtime.containerIds()).contains(orphan);
            fail.set(false);
            scheduler.tick();
            assertThat(runtime.containerIds()).doesNotContain(orphan);
        } finally {
            j.close();
            scheduler.shutdownNow();
        }
    }

    @Test
    void sweepsNeverOverlap() throws Exception {
        String orphan = sandbox("orphan", "me", Duration.ofMinutes(10));
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        AtomicInteger reads = new AtomicInteger();
        Janitor j = new Janitor(
                runtime,
                "me",
                () -> {
                    if (reads.getAndIncrement() == 0) {
                        inside.countDown();
                        await(letGo);
                    }
                    return claimed;
                },
                audit,
                Clock.fixed(NOW, ZoneOffset.UTC),
                Duration.ofMinutes(2));
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<SweepReport> first = threads.submit(j::sweepOnce);
            assertThat(inside.await(10, TimeUnit.SECONDS))
                    .as("the first sweep reached its claimed-set read")
                    .isTrue();
            AtomicReference<Thread> secondThread = new AtomicReference<>();
            Future<SweepReport> second = threads.submit(() -> {
                secondThread.set(Thread.currentThread());
                return j.sweepOnce();
            });
            awaitState(secondThread, Thread.State.BLOCKED);
            assertThat(reads.get())
                    .as("the second sweep has not started while the first runs")
                    .isEqualTo(1);

            letGo.countDown();

            assertThat(first.get(10, TimeUnit.SECONDS).removedIds()).containsExactly(orphan);
            assertThat(second.get(10, TimeUnit.SECONDS).found()).isZero();
        } finally {
            letGo.countDown();
            threads.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released in 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits (bounded) until the thread in {@code ref} exists and is in {@code state}. */
    private static void awaitState(AtomicReference<Thread> ref, Thread.State state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((ref.get() == null || ref.get().getState() != state) && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(ref.get()).as("thread started").isNotNull();
        assertThat(ref.get().getState()).isEqualTo(state);
    }

    @Test
    void neverTouchesUnlabelledContainersOrAnotherInstancesSandboxes() {
        String stranger = container("stranger", Map.of("app", "web"));
        String other = sandbox("other", "someone-else", Duration.ofHours(3));

        SweepReport report = janitor.sweepOnce();

        assertThat(report.found()).isZero();
        assertThat(runtime.containerIds()).containsExactlyInAnyOrder(stranger, other);
    }

    @Test
    void aFailingSweepIsReportedNotThrown() {
        runtime.setDaemonReachable(false);

        SweepReport report = janitor.sweepOnce();

        assertThat(report.ok()).isFalse();
        assertThat(report.summary())
                .startsWith("startup sweep: sweep failed: ContainerRuntimeException")
                .contains("not reachable")
                .endsWith("(will run again next tick)");
    }
}
