package io.roboco.sandbox.janitor;

import io.roboco.sandbox.ledger.OwnedContainers;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.settings.AuditLog;
import io.roboco.sandbox.settings.AuditTrail;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sweeps orphaned sandbox containers: at start and on every tick, it removes containers labelled
 * {@code roboco.sandbox=1} that belong to this instance, that this process's container ledger does not keep,
 * and that are older than the grace window and were created before the sweep began. It never
 * touches an unlabelled container or another instance's, and never throws out of its schedule.
 */
public final class Janitor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Janitor.class);
    /** The {@code verb} of the janitor's audit records. */
    public static final String AUDIT_VERB = "janitor_sweep";

    private final ContainerRuntime runtime;
    private final String instanceId;
    private final OwnedContainers owned;
    private final AuditTrail audit;
    private final Clock clock;
    private final Duration grace;
    private final AtomicBoolean firstSweep = new AtomicBoolean(true);
    private volatile ScheduledFuture<?> schedule;
    /** Run on every tick, in order, before the orphan sweep. */
    private final List<Map.Entry<String, Chore>> chores = new CopyOnWriteArrayList<>();

    private volatile IntConsumer orphansRemoved = n -> {};
    private volatile Instant lastTick;

    /**
     * @param owned the containers this process keeps (its {@code ContainerLedger}: in flight, pending, pooled,
     *              claimed, held); asked fresh each sweep, and nothing else is
     */
    public Janitor(
            ContainerRuntime runtime,
            String instanceId,
            OwnedContainers owned,
            AuditLog audit,
            Clock clock,
            Duration grace) {
        this(runtime, instanceId, owned, new AuditTrail(audit, clock), clock, grace);
    }

    /** With the audit trail its records are made and written through (the plugin's). */
    public Janitor(
            ContainerRuntime runtime,
            String instanceId,
            OwnedContainers owned,
            AuditTrail audit,
            Clock clock,
            Duration grace) {
        if (grace.isNegative()) {
            throw new IllegalArgumentException("janitor grace window must not be negative, was " + grace);
        }
        this.runtime = runtime;
        this.instanceId = instanceId;
        this.owned = owned;
        this.audit = audit;
        this.clock = clock;
        this.grace = grace;
    }

    /** Adds a chore run on every tick, before the orphan sweep (add them before {@link #start}). */
    public Janitor withChore(String name, Chore chore) {
        chores.add(Map.entry(name, chore));
        return this;
    }

    /** Told how many orphans each sweep removed (for metrics). */
    public Janitor onOrphansRemoved(IntConsumer listener) {
        this.orphansRemoved = listener;
        return this;
    }

    /** When the last tick finished (chores and sweep), or null before the first. */
    public Instant lastTick() {
        return lastTick;
    }

    /** Runs every chore once, in order; each failure is logged and reported, never thrown. */
    public List<String> runChores() {
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, Chore> chore : chores) {
            try {
                String line = chore.getValue().run(clock.instant());
                if (line != null) {
                    lines.add(chore.getKey() + ": " + line);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return lines;
            } catch (Throwable t) {
                log.warn("janitor chore '{}' failed: {}; will run again next tick", chore.getKey(), t.toString());
                lines.add(chore.getKey() + ": failed: " + t.getClass().getSimpleName());
            }
        }
        return lines;
    }

    /**
     * One whole tick now, as the schedule runs it: every chore, then {@link #sweepOnce()}. Returns the sweep's report.
     */
    public SweepReport tickOnce() {
        try {
            for (String line : runChores()) {
                log.info("janitor {}", line);
            }
            return sweepOnce();
        } finally {
            lastTick = clock.instant();
        }
    }

    /**
     * Sweeps now (the startup sweep, always reported), then every {@code tick} on the given scheduler:
     * each tick is {@link #sweepOnce()}, and nothing escapes it, so the schedule never dies.
     */
    public void start(ScheduledExecutorService scheduler, Duration tick) {
        if (tick.isNegative() || tick.isZero()) {
            throw new IllegalArgumentException("janitor tick must be positive, was " + tick);
        }
        schedule = scheduler.scheduleWithFixedDelay(this::tickSafely, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * One sweep now, exactly as a tick runs it: logged, audited (the first sweep of this janitor is the
     * startup sweep, always audited; a later one when it removed or failed something), and returned. Sweeps never overlap: a call waits for a running tick.
     * Never throws for a fault of the runtime or the audit store: a failed sweep is a report that says so.
     */
    public synchronized SweepReport sweepOnce() {
        SweepReport report = sweep(firstSweep.compareAndSet(true, false));
        report(report);
        if (!report.removed().isEmpty()) {
            try {
                orphansRemoved.accept(report.removed().size());
            } catch (RuntimeException e) {
                log.debug("orphan-removal listener failed: {}", e.toString());
            }
        }
        return report;
    }

    private SweepReport sweep(boolean startup) {
        Instant started = clock.instant();
        try {
            List<ContainerState> found = runtime.list(SandboxLabels.ofInstance(instanceId));
            // Ask the ledger after listing: a container started and entered in between is then protected.
            Set<String> inUse = owned.ownedIds();
            List<SweepReport.Removal> removed = new ArrayList<>();
            List<SweepReport.Kept> kept = new ArrayList<>();
            List<SweepReport.Removal> failed = new ArrayList<>();
            for (ContainerState container : found) {
                String reason = keepReason(container, inUse, started);
                // Ask again just before removing: a container entered since the first read stays.
                if (reason == null && owned.ownedIds().contains(container.id())) {
                    reason = "in use";
                }
                if (reason != null) {
                    kept.add(new SweepReport.Kept(container.id(), reason));
                    continue;
                }
                long age = started.getEpochSecond() - createdEpochSeconds(container);
                try {
                    runtime.remove(container.id());
                    removed.add(removal(
                            container,
                            "orphan removed: unclaimed, age " + age + "s >= grace " + grace.toSeconds() + "s"));
                    log.info(
                            "janitor removed orphan sandbox container {} ({} of agent {}, project {}; age {}s, unclaimed)",
                            container.name(),
                            container.labels().get(SandboxLabels.SERVICE),
                            container.labels().get(SandboxLabels.AGENT),
                            container.labels().get(SandboxLabels.PROJECT),
                            age);
                } catch (RuntimeException e) {
                    failed.add(removal(
                            container, "could not remove orphan: " + e.getMessage() + "; will retry next tick"));
                    log.warn(
                            "janitor could not remove {}: {} (will retry next tick)", container.name(), e.getMessage());
                }
            }
            return new SweepReport(started, startup, found.size(), removed, kept, failed, null);
        } catch (RuntimeException e) {
            return SweepReport.crashed(started, startup, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static SweepReport.Removal removal(ContainerState c, String detail) {
        return new SweepReport.Removal(
                c.id(),
                c.name(),
                c.labels().get(SandboxLabels.AGENT),
                c.labels().get(SandboxLabels.PROJECT),
                c.labels().get(SandboxLabels.SERVICE),
                detail);
    }

    private String keepReason(ContainerState container, Set<String> inUse, Instant sweepStart) {
        // Defence in depth: the list filter already asks for these labels.
        if (!"1".equals(container.labels().get(SandboxLabels.SANDBOX))) {
            return "not a sandbox container";
        }
        if (!instanceId.equals(container.labels().get(SandboxLabels.INSTANCE))) {
            return "belongs to instance " + container.labels().get(SandboxLabels.INSTANCE);
        }
        if (inUse.contains(container.id())) {
            return "in use";
        }
        long created = createdEpochSeconds(container);
        if (created >= sweepStart.getEpochSecond()) {
            return "created after the sweep began";
        }
        Duration age = Duration.ofSeconds(sweepStart.getEpochSecond() - created);
        if (age.compareTo(grace) < 0) {
            return "inside the grace window (age " + age.toSeconds() + "s < " + grace.toSeconds() + "s)";
        }
        return null;
    }

    private static long createdEpochSeconds(ContainerState container) {
        String label = container.labels().get(SandboxLabels.CREATED);
        try {
            return label == null ? container.createdEpochSeconds() : Long.parseLong(label);
        } catch (NumberFormatException e) {
            return container.createdEpochSeconds();
        }
    }

    private void tickSafely() {
        try {
            tickOnce();
        } catch (Throwable t) {
            log.error("unexpected exception in janitor sweep; will run again next tick", t);
        } finally {
            lastTick = clock.instant();
        }
    }

    /**
     * To the log: every sweep that found something or failed. To the audit trail: the startup sweep,
     * and every sweep that removed something or failed — one summary record ({@code decision=sweep}),
     * plus one record per container removed ({@code removed}) or not removable ({@code remove_failed})
     * under its agent's slug, so {@code GET /api/audit?agent=dev-3} shows what the janitor did to it.
     */
    private void report(SweepReport report) {
        try {
            logAndAudit(report);
        } catch (RuntimeException e) {
            log.warn("janitor could not report its sweep ({}); the sweep itself is unaffected", e.toString());
        }
    }

    private void logAndAudit(SweepReport report) {
        if (!report.ok()) {
            log.warn("janitor: {}", report.summary());
        } else if (report.found() > 0 || report.startup()) {
            log.info("janitor: {}", report.summary());
        } else {
            log.debug("janitor: {}", report.summary());
        }
        if (!report.startup() && report.removed().isEmpty() && report.ok()) {
            return;
        }
        long millis = Duration.between(report.started(), clock.instant()).toMillis();
        for (SweepReport.Removal r : report.removed()) {
            audit.recordAt(
                    report.started(),
                    r.agent(),
                    r.project(),
                    AUDIT_VERB,
                    "removed",
                    r.name() + ": " + r.detail(),
                    r.service() == null ? List.of() : List.of(r.service()),
                    millis);
        }
        for (SweepReport.Removal r : report.failed()) {
            audit.recordAt(
                    report.started(),
                    r.agent(),
                    r.project(),
                    AUDIT_VERB,
                    "remove_failed",
                    r.name() + ": " + r.detail(),
                    r.service() == null ? List.of() : List.of(r.service()),
                    millis);
        }
        audit.recordAt(report.started(), "", "", AUDIT_VERB, "sweep", report.summary(), List.of(), millis);
    }

    @Override
    public void close() {
        ScheduledFuture<?> s = schedule;
        if (s != null) {
            s.cancel(false);
        }
    }
}
