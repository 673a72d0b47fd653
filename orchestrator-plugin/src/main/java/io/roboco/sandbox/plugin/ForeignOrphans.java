package io.roboco.sandbox.plugin;

import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.settings.AuditTrail;
import io.roboco.sandbox.settings.SandboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Containers labelled {@code roboco.sandbox=1} that belong to <em>other</em> instance ids: the leftovers of a
 * server whose state directory was wiped or that moved, which its own janitor will never sweep.
 *
 * <p>How "alive" is known: every server's janitor writes a heartbeat row (instance id, time) into its store
 * on each tick. An instance whose heartbeat is younger than {@code aliveWindow} is <b>alive</b>, and its
 * containers are never touched, forced or not. One whose heartbeat is older is <b>gone</b>: its containers
 * are removed by a real (not dry) run. One with no heartbeat in this store is <b>unknown</b> — always the case
 * for another server with an embedded store, which cannot share its heartbeats — and is removed only when
 * the operator forces it.
 */
public final class ForeignOrphans {
    private static final Logger log = LoggerFactory.getLogger(ForeignOrphans.class);
    public static final String VERB = "cleanup_foreign";

    private final ContainerRuntime runtime;
    private final SandboxStore store;
    private final AuditTrail audit;
    private final String instance;
    private final Duration aliveWindow;
    private final Clock clock;

    public ForeignOrphans(
            ContainerRuntime runtime,
            SandboxStore store,
            AuditTrail audit,
            String instance,
            Duration aliveWindow,
            Clock clock) {
        this.runtime = runtime;
        this.store = store;
        this.audit = audit;
        this.instance = instance;
        this.aliveWindow = aliveWindow;
        this.clock = clock;
    }

    public enum InstanceState {
        ALIVE,
        GONE,
        UNKNOWN
    }

    /**
     * One foreign container and what the run did with it.
     *
     * @param action {@code would remove}, {@code removed}, {@code kept: …} or {@code remove failed: …}
     */
    public record Found(
            String containerId,
            String containerName,
            String instance,
            InstanceState instanceState,
            long ageSeconds,
            String service,
            String agent,
            String action) {}

    /** Lists (and unless {@code dryRun}, removes) foreign sandbox containers older than {@code olderThan}. */
    public List<Found> run(Duration olderThan, boolean dryRun, boolean force) {
        Instant now = clock.instant();
        Map<String, Instant> beats = store.heartbeats();
        List<Found> out = new ArrayList<>();
        for (ContainerState c : runtime.list(Map.of(SandboxLabels.SANDBOX, "1"))) {
            String owner = c.labels().getOrDefault(SandboxLabels.INSTANCE, "");
            if (owner.equals(instance)) {
                continue;
            }
            long age = now.getEpochSecond() - created(c);
            if (age < olderThan.toSeconds()) {
                continue;
            }
            InstanceState state = stateOf(beats.get(owner), now);
            String action;
            if (state == InstanceState.ALIVE) {
                action = "kept: instance " + owner + " is alive (heartbeat " + beats.get(owner) + ")";
            } else if (state == InstanceState.UNKNOWN && !force) {
                action = dryRun
                        ? "would remove only when forced: instance " + owner + " has no heartbeat in this store"
                        : "kept: instance " + owner + " has no heartbeat in this store; force to remove";
            } else if (dryRun) {
                action = "would remove";
            } else {
                action = remove(c, owner, state, age);
            }
            out.add(new Found(
                    c.id(),
                    c.name(),
                    owner,
                    state,
                    age,
                    c.labels().getOrDefault(SandboxLabels.SERVICE, ""),
                    c.labels().getOrDefault(SandboxLabels.AGENT, ""),
                    action));
        }
        return out;
    }

    private String remove(ContainerState c, String owner, InstanceState state, long age) {
        try {
            runtime.remove(c.id());
            log.info("removed foreign sandbox container {} of instance {} ({}; age {}s)", c.name(), owner, state, age);
            audit.recordAt(
                    clock.instant(),
                    c.labels().getOrDefault(SandboxLabels.AGENT, ""),
                    c.labels().getOrDefault(SandboxLabels.PROJECT, ""),
                    VERB,
                    "removed",
                    c.name() + " of instance " + owner + " (" + state.name().toLowerCase() + ", age " + age
                            + "s) removed",
                    List.of(),
                    0);
            return "removed";
        } catch (RuntimeException e) {
            return "remove failed: " + e.getMessage();
        }
    }

    private InstanceState stateOf(Instant heartbeat, Instant now) {
        if (heartbeat == null) {
            return InstanceState.UNKNOWN;
        }
        return Duration.between(heartbeat, now).compareTo(aliveWindow) < 0 ? InstanceState.ALIVE : InstanceState.GONE;
    }

    private static long created(ContainerState c) {
        try {
            String label = c.labels().get(SandboxLabels.CREATED);
            return label == null ? c.createdEpochSeconds() : Long.parseLong(label);
        } catch (NumberFormatException e) {
            return c.createdEpochSeconds();
        }
    }
}
