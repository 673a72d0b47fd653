package io.roboco.sandbox.janitor;

import io.roboco.sandbox.plugin.PluginContext;
import io.roboco.sandbox.plugin.PluginExtension;
import io.roboco.sandbox.provision.OwnerNetworks;
import io.roboco.sandbox.runtime.NetworkMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The janitor as a plugin extension: {@code SandboxPlugin.builder().extension(JanitorExtension.every(tick, grace, retention))}.
 * Started after re-adoption (so it sees every re-adopted container as owned), it sweeps at once and then every tick on
 * its own thread, with the chores of {@link JanitorChores} (heartbeat, expiry, audit retention) and, in network mode, the
 * removal of owner networks left with no sandbox on them ({@link OwnerNetworks#sweep}); closing the plugin ends
 * that thread.
 */
public final class JanitorExtension implements PluginExtension {
    private final Duration tick;
    private final Duration grace;
    private final Duration auditRetention;
    private volatile Janitor janitor;

    private JanitorExtension(Duration tick, Duration grace, Duration auditRetention) {
        if (tick.isNegative() || tick.isZero()) {
            throw new IllegalArgumentException("janitor tick must be positive, was " + tick);
        }
        this.tick = tick;
        this.grace = grace;
        this.auditRetention = auditRetention;
    }

    /** Sweeps every {@code tick}, removing orphans older than {@code grace}, pruning audit records older than {@code auditRetention}. */
    public static JanitorExtension every(Duration tick, Duration grace, Duration auditRetention) {
        return new JanitorExtension(tick, grace, auditRetention);
    }

    @Override
    public AutoCloseable start(PluginContext context) {
        Janitor started = new Janitor(
                context.runtime(),
                context.instanceId(),
                context.containers(),
                context.plugin().audit(),
                context.clock(),
                grace);
        JanitorChores.register(started, context.store(), context.instanceId(), context.sandboxes(), auditRetention);
        if (context.provisioning().network() instanceof NetworkMode.Named) {
            started.withChore("networks", now -> {
                List<String> removed = OwnerNetworks.sweep(context.runtime(), context.instanceId(), grace, now);
                return removed.isEmpty()
                        ? null
                        : "removed " + removed.size() + " owner network(s) no sandbox was on: "
                                + String.join(", ", removed);
            });
        }
        started.onOrphansRemoved(n -> context.events().janitorRemoved("orphan", n));
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "roboco-sandbox-janitor");
            t.setDaemon(true);
            return t;
        });
        started.start(scheduler, tick);
        this.janitor = started;
        return () -> {
            started.close();
            scheduler.shutdownNow();
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        };
    }

    /** The running janitor (to sweep now, or read its last tick); empty until the plugin started it. */
    public Optional<Janitor> janitor() {
        return Optional.ofNullable(janitor);
    }

    /** When the janitor last finished a tick; null before its first. */
    public Instant lastTick() {
        Janitor j = janitor;
        return j == null ? null : j.lastTick();
    }

    public Duration tick() {
        return tick;
    }
}
