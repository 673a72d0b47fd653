package io.roboco.sandbox.janitor;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.FakeContainerRuntime;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class JanitorTest {
    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final Set<String> claimed = ConcurrentHashMap.newKeySet();
    private final InMemorySettingsStore audit = new InMemorySettingsStore();
    private final Janitor janitor = new Janitor(runtime, "me", () -> claimed, audit, Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofMinutes(2));

    private String container(String name, Map<String, String> labels) {
        ContainerSpec spec = new ContainerSpec("img:1", Map.of(), List.of("run"), "/data", 1);
        return runtime.start(new RunRequest(name, spec, labels, Limits.sandboxDefaults(), NetworkMode.host(), Set.of())).id();
    }

    private String sandbox(String name, String instance, Duration age) {
        return container(name, SandboxLabels.forService(instance, "dev-1", "shop", "postgres", NOW.minus(age).getEpochSecond()));
    }

    @Test
    void removesUnclaimedSandboxesOlderThanTheGraceWindow() {
        String orphan = sandbox("orphan", "me", Duration.ofMinutes(5));

        SweepReport report = janitor.sweepOnce();

        assertThat(report.removedIds()).containsExactly(orphan);
        assertThat(report.removed().get(0)).extracting(SweepReport.Removal::agent, SweepReport.Removal::service)
                .containsExactly("dev-1", "postgres");
        assertThat(runtime.containerIds()).isEmpty();
        assertThat(report.summary()).isEqualTo("found 1, removed 1, kept 0");
    }

    @Test
    void keepsWhatIsClaimedYoungOrCreatedAfterTheSweepBegan() {
        String live = sandbox("live", "me", Duration.ofMinutes(5));
        claimed.add(live);
        String young = sandbox("young", "me", Duration.ofSeconds(30));
        String future = sandbox("future", "me", Duration.ofSeconds(-5));

        SweepReport report = janitor.sweepOnce();

        assertThat(report.removed()).isEmpty();
        assertThat(report.kept()).extracting(SweepReport.Kept::containerId).containsExactlyInAnyOrder(live, young, future);
        assertThat(report.kept()).extracting(SweepReport.Kept::reason)
                .anyMatch(r -> r.equals("in use"))
                .anyMatch(r -> r.startsWith("inside the grace window"))
                .anyMatch(r -> r.equals("created after the sweep began"));
        assertThat(report.summary())
                .isEqualTo("found 3, removed 0, kept 3 (created after the sweep began: 1, in use: 1, inside the grace window: 1)");
    }

    @Test
    void aContainerClaimedWhileTheSweepRunsIsKept() {
        String handedOut = sandbox("handed-out", "me", Duration.ofMinutes(5));
        // The first read of the claimed set misses it; by the time the sweep would remove it, it is claimed.
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        Janitor racing = new Janitor(runtime, "me", () -> reads.getAndIncrement() == 0 ? Set.of() : Set.of(handedOut), audit,
                Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofMinutes(2));

        SweepReport report = racing.sweepOnce();

        assertThat(report.removed()).isEmpty();
        assertThat(runtime.containerIds()).containsExactly(handedOut);
    }

    @Test
    void theStartupSweepIsAuditedEvenWhenItFindsNothingAndRemovalsAreAuditedPerAgent() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try {
            janitor.start(scheduler, Duration.ofMillis(20));
            awaitAudit(r -> r.reason().startsWith("startup sweep: found 0"));
            sandbox("orphan", "me", Duration.ofMinutes(10));
            awaitAudit(r -> r.decision().equals("removed"));
            assertThat(audit.recent("dev-1", "removed", 10)).singleElement().satisfies(r -> {
                assertThat(r.verb()).isEqualTo(Janitor.AUDIT_VERB);
                assertThat(r.project()).isEqualTo("shop");
                assertThat(r.services()).containsExactly("postgres");
                assertThat(r.reason()).startsWith("orphan: orphan removed: unclaimed, age 600s >= grace 120s");
            });
            // Quiet sweeps (nothing found, nothing failed) after the first one are not audited.
            int sweeps = audit.recent(null, "sweep", 1000).size();
            Thread.sleep(150);
            assertThat(audit.recent(null, "sweep", 1000)).hasSize(sweeps);
        } finally {
            janitor.close();
            scheduler.shutdownNow();
        }
    }

    @Test
    void anAuditStoreThatFailsNeverStopsTheSchedule() throws Exception {
        java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
        io.roboco.sandbox.settings.AuditLog broken = new io.roboco.sandbox.settings.AuditLog() {
            @Override
            public void append(io.roboco.sandbox.settings.AuditRecord record) {
                attempts.incrementAndGet();
                throw new IllegalStateException("audit store down");
            }

            @Override
            public List<io.roboco.sandbox.settings.AuditRecord> recent(String agent, String decision, int limit) {
                return List.of();
            }
        };
        Janitor j = new Janitor(runtime, "me", () -> claimed, broken, Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofMinutes(2));
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try {
            j.start(scheduler, Duration.ofMillis(20));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            int round = 0;
            while (round < 3 && System.nanoTime() < deadline) {
                sandbox("orphan-" + round, "me", Duration.ofMinutes(10));
                while (!runtime.containerIds().isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                round++;
            }
            assertThat(round).isEqualTo(3);
            assertThat(runtime.containerIds()).isEmpty();
            assertThat(attempts.get()).isGreaterThanOrEqualTo(3);
        } finally {
            j.close();
            scheduler.shutdownNow();
        }
    }

    private void awaitAudit(java.util.function.Predicate<io.roboco.sandbox.settings.AuditRecord> match) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (audit.recent(null, null, 1000).stream().noneMatch(match) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(audit.recent(null, null, 1000)).anyMatch(match);
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
        assertThat(report.summary()).startsWith("sweep failed: ContainerRuntimeException").contains("not reachable")
                .endsWith("(will run again next tick)");
    }

    @Test
    void theScheduleSurvivesFailedSweepsAndRecordsRemovalsInTheAudit() throws Exception {
        runtime.setDaemonReachable(false);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try {
            janitor.start(scheduler, Duration.ofMillis(20));
            Thread.sleep(100);
            runtime.setDaemonReachable(true);
            sandbox("orphan", "me", Duration.ofMinutes(10));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while ((!runtime.containerIds().isEmpty() || audit.recent(null, "sweep", 100).stream().noneMatch(r -> r.reason().contains("removed 1")))
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(runtime.containerIds()).isEmpty();
            assertThat(audit.recent(null, "sweep", 100)).extracting(r -> r.reason())
                    .anyMatch(r -> r.startsWith("startup sweep: sweep failed"))
                    .anyMatch(r -> r.contains("removed 1"));
        } finally {
            janitor.close();
            scheduler.shutdownNow();
        }
    }
}
