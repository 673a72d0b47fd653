package io.roboco.sandbox.janitor;

import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.settings.AuditLog;
import io.roboco.sandbox.settings.AuditRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Sweeps orphaned sandbox containers: at start and on every tick, it removes containers labelled
 * {@code roboco.sandbox=1} that belong to this instance, that no live cache entry (or pool) claims,
 * and that are older than the grace window and were created before the sweep began. It never
 * touches an unlabelled container or another instance's, and never throws out of its schedule.
 */
public final class Janitor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Janitor.class);

    private final ContainerRuntime runtime;
    private final String instanceId;
    private final Supplier<Set<String>> claimed;
    private final AuditLog audit;
    private final Clock clock;
    private final Duration grace;
    private volatile ScheduledFuture<?> schedule;

    /**
     * @param claimed ids of containers that are in use (the manager's cache, the warm pool); read fresh each sweep
     */
    public Janitor(ContainerRuntime runtime, String instanceId, Supplier<Set<String>> claimed, AuditLog audit, Clock clock, Duration grace) {
        if (grace.isNegative()) {
            throw new IllegalArgumentException("janitor grace window must not be negative, was " + grace);
        }
        this.runtime = runtime;
        this.instanceId = instanceId;
        this.claimed = claimed;
        this.audit = audit;
        this.clock = clock;
        this.grace = grace;
    }

    /** Sweeps now, then every {@code tick} on the given scheduler. */
    public void start(ScheduledExecutorService scheduler, Duration tick) {
        if (tick.isNegative() || tick.isZero()) {
            throw new IllegalArgumentException("janitor tick must be positive, was " + tick);
        }
        schedule = scheduler.scheduleWithFixedDelay(this::sweepSafely, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One sweep. Never throws: a failure is reported in the result. */
    public SweepReport sweepOnce() {
        Instant started = clock.instant();
        try {
            List<ContainerState> found = runtime.list(SandboxLabels.ofInstance(instanceId));
            // Read the claimed set after listing: a container created and cached in between is then protected.
            Set<String> inUse = claimed.get();
            List<String> removed = new ArrayList<>();
            List<SweepReport.Kept> kept = new ArrayList<>();
            List<String> failed = new ArrayList<>();
            for (ContainerState container : found) {
                String reason = keepReason(container, inUse, started);
                if (reason != null) {
                    kept.add(new SweepReport.Kept(container.id(), reason));
                    continue;
                }
                try {
                    runtime.remove(container.id());
                    removed.add(container.id());
                    log.info("janitor removed orphan sandbox container {} ({} of agent {}, project {})", container.name(),
                            container.labels().get(SandboxLabels.SERVICE), container.labels().get(SandboxLabels.AGENT),
                            container.labels().get(SandboxLabels.PROJECT));
                } catch (RuntimeException e) {
                    failed.add(container.id());
                    log.warn("janitor could not remove {}: {} (will retry next tick)", container.name(), e.getMessage());
                }
            }
            return new SweepReport(started, found.size(), removed, kept, failed, null);
        } catch (RuntimeException e) {
            return SweepReport.crashed(started, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
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

    private void sweepSafely() {
        try {
            SweepReport report = sweepOnce();
            if (report.found() > 0 || !report.ok()) {
                log.info("janitor: {}", report.summary());
            }
            if (!report.removed().isEmpty() || !report.ok()) {
                audit.append(new AuditRecord(report.started(), "", "", "janitor_sweep", "sweep", report.summary(), List.of(),
                        Duration.between(report.started(), clock.instant()).toMillis()));
            }
        } catch (Throwable t) {
            log.error("unexpected exception in janitor sweep; will run again next tick", t);
        }
    }

    @Override
    public void close() {
        ScheduledFuture<?> s = schedule;
        if (s != null) {
            s.cancel(false);
        }
    }
}
