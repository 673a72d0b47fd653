package io.roboco.sandbox.server.health;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.lifecycle.Capacity;
import io.roboco.sandbox.lifecycle.SandboxBook;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.plugin.ActivityHistory;
import io.roboco.sandbox.plugin.PluginContext;
import io.roboco.sandbox.plugin.PluginExtension;
import io.roboco.sandbox.plugin.SandboxEvents;
import io.roboco.sandbox.pool.WarmPool;
import io.roboco.sandbox.provision.StartQueue;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's metrics through Micrometer, scraped as Prometheus text at {@code GET /metrics}. Names are in base
 * units ({@code _seconds}, {@code _total}); label values come from small fixed sets (engine, path, reason, cause,
 * kind) — never an agent, project or sandbox id.
 *
 * <pre>
 * roboco_sandbox_request_seconds{path=hit|pool|cold}        histogram of granted request_sandbox (and named creates)
 * roboco_sandbox_refusals_total{reason=…}                   refusals by reason (flag_off, no_task, owner_quota, …)
 * roboco_sandbox_invalid_state_total{reason=capacity|provisioning}
 * roboco_sandbox_janitor_removals_total{cause=orphan|expired} containers the janitor removed
 * roboco_sandbox_live_sandboxes{kind=default|named}         live sandboxes
 * roboco_sandbox_live_containers{engine=…}                  containers of live sandboxes by engine
 * roboco_sandbox_pool_idle_containers{engine=…}             ready warm-pool containers
 * roboco_sandbox_pool_seeded_idle_containers                ready seeded warm-pool containers, all seeded projects
 * roboco_sandbox_capacity_used_containers / _max_containers the capacity gauge (pool included)
 * roboco_sandbox_starts_in_flight / _start_queue_waiting   container starts holding a turn / waiting for one
 * roboco_sandbox_start_queue_peak_waiting                  most starts waiting at once (since start or a bench's reset)
 * roboco_sandbox_start_queue_timed_out_total / _refused_total starts that waited too long / whose owner had too many waiting
 * </pre>
 *
 * <p>It also keeps the last hour, a point per minute ({@link ActivityHistory}, a ring of 60 minutes): the live
 * sandboxes (sampled at each grant, each scrape and each read of the history) and the granted requests' count, mean and
 * slowest time to credentials. The dashboard's Sandboxes page draws it.
 */
public final class SandboxMetrics implements SandboxEvents, PluginExtension, ActivityHistory {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, Timer> requests = new ConcurrentHashMap<>();
    /** The multi-gauges' refreshes; none until the plugin's gauges are bound ({@link #start}). */
    private volatile List<Runnable> refreshers = List.of();

    private final MinuteSeries lastHour;
    /** The live sandboxes now (agents' sets and named ones); zero until the plugin's gauges are bound. */
    private volatile LiveCount liveCount = () -> 0;

    private interface LiveCount {
        int now();
    }

    /**
     * The event counters and timers; the gauges follow when the built plugin starts this extension.
     *
     * @param clock the server's clock, which the per-minute history reads
     */
    public SandboxMetrics(Clock clock) {
        this.lastHour = new MinuteSeries(clock);
        for (String path : List.of("hit", "pool", "cold")) {
            timer(path);
        }
    }

    @Override
    public Stage stage() {
        return Stage.FRONT_DOOR;
    }

    /** Binds the gauges to the built plugin's live numbers (Micrometer's binder step). */
    @Override
    public AutoCloseable start(PluginContext context) {
        gauges(
                context.engines(),
                context.plugin().manager(),
                context.sandboxes().book(),
                context.capacity());
        return registry::close;
    }

    private void gauges(EngineRegistry engines, SandboxManager manager, SandboxBook book, Capacity capacity) {
        Gauge.builder("roboco.sandbox.live.sandboxes", manager, m -> m.live().size())
                .tag("kind", "default")
                .description("live request_sandbox sets")
                .register(registry);
        Gauge.builder("roboco.sandbox.live.sandboxes", book, b -> b.namedSandboxCount())
                .tag("kind", "named")
                .description("live named sandboxes")
                .register(registry);
        MultiGauge containers = MultiGauge.builder("roboco.sandbox.live.containers")
                .description("containers of live sandboxes")
                .register(registry);
        MultiGauge pool = MultiGauge.builder("roboco.sandbox.pool.idle.containers")
                .description("ready warm-pool containers")
                .register(registry);
        Gauge.builder(
                        "roboco.sandbox.pool.seeded.idle.containers",
                        manager,
                        m -> m.pool().map(WarmPool::idleSeeded).orElse(0))
                .description("ready seeded warm-pool containers (ROBOCO_SANDBOX_POOL_SEEDED), all seeded projects")
                .register(registry);
        Gauge.builder("roboco.sandbox.capacity.used.containers", capacity, Capacity::used)
                .description("sandbox containers this server accounts for, warm pool included")
                .register(registry);
        Gauge.builder("roboco.sandbox.capacity.max.containers", capacity, c -> c.limited() ? c.max() : Double.NaN)
                .description("ROBOCO_SANDBOX_MAX_CONTAINERS (derived from the host's memory when unset)")
                .register(registry);
        StartQueue starts = manager.provisioner().startQueue();
        Gauge.builder(
                        "roboco.sandbox.starts.in.flight",
                        starts,
                        q -> q.snapshot().inFlight())
                .description("container starts holding a turn (ROBOCO_SANDBOX_CONCURRENT_STARTS at most)")
                .register(registry);
        Gauge.builder(
                        "roboco.sandbox.start.queue.waiting",
                        starts,
                        q -> q.snapshot().waiting())
                .description("container starts waiting for a turn")
                .register(registry);
        Gauge.builder(
                        "roboco.sandbox.start.queue.peak.waiting",
                        starts,
                        q -> q.snapshot().peakWaiting())
                .description("most container starts waiting at once")
                .register(registry);
        FunctionCounter.builder(
                        "roboco.sandbox.start.queue.timed.out",
                        starts,
                        q -> q.snapshot().timedOut())
                .description("starts that waited ROBOCO_SANDBOX_START_QUEUE_WAIT and failed retryably")
                .register(registry);
        FunctionCounter.builder(
                        "roboco.sandbox.start.queue.refused",
                        starts,
                        q -> q.snapshot().refused())
                .description("starts refused because their owner had ROBOCO_SANDBOX_START_QUEUE_PER_OWNER waiting")
                .register(registry);
        this.refreshers = List.of(
                () -> containers.register(rows(engines, containersByEngine(manager, book)), true),
                () -> pool.register(rows(engines, poolIdle(manager)), true));
        this.liveCount = () -> manager.live().size() + book.namedSandboxCount();
        refresh();
    }

    /** The Prometheus text of every meter, multi-gauges refreshed first. */
    public String scrape() {
        refresh();
        return registry.scrape();
    }

    @Override
    public void granted(String path, Duration took) {
        timer(path).record(took);
        lastHour.request(took);
        lastHour.live(liveCount.now());
    }

    /** The last hour, a point per minute, the live count sampled now. */
    @Override
    public List<MinutePoint> lastHour() {
        lastHour.live(liveCount.now());
        return lastHour.lastHour();
    }

    @Override
    public void refused(String code) {
        Counter.builder("roboco.sandbox.refusals")
                .tag("reason", code)
                .description("refused requests by reason")
                .register(registry)
                .increment();
    }

    @Override
    public void invalidState(String code) {
        Counter.builder("roboco.sandbox.invalid.state")
                .tag("reason", code)
                .description("invalid_state answers by reason")
                .register(registry)
                .increment();
    }

    @Override
    public void janitorRemoved(String cause, int containers) {
        Counter.builder("roboco.sandbox.janitor.removals")
                .tag("cause", cause)
                .description("containers the janitor removed")
                .register(registry)
                .increment(containers);
    }

    private Timer timer(String path) {
        return requests.computeIfAbsent(
                path,
                p -> Timer.builder("roboco.sandbox.request")
                        .tag("path", p)
                        .description(
                                "time to working credentials of granted requests, by path: cache hit, pool claim, cold start")
                        .publishPercentileHistogram()
                        .minimumExpectedValue(Duration.ofMillis(1))
                        .maximumExpectedValue(Duration.ofSeconds(60))
                        .register(registry));
    }

    private void refresh() {
        refreshers.forEach(Runnable::run);
        lastHour.live(liveCount.now());
    }

    private static Map<String, Integer> containersByEngine(SandboxManager manager, SandboxBook book) {
        Map<String, Integer> counts = new TreeMap<>(book.namedContainersByService());
        for (AgentSandbox s : manager.live()) {
            s.services().keySet().forEach(engine -> counts.merge(engine, 1, Integer::sum));
        }
        return counts;
    }

    private static Map<String, Integer> poolIdle(SandboxManager manager) {
        Map<String, Integer> idle = new TreeMap<>();
        manager.pool()
                .ifPresent(p -> p.sizes()
                        .sizes()
                        .keySet()
                        .forEach(key -> idle.merge(engineOf(key), p.idle(key), Integer::sum)));
        return idle;
    }

    /** A pool key is an engine or {@code engine_major}; the label is the engine (a small fixed set). */
    private static String engineOf(String key) {
        int u = key.indexOf('_');
        return u < 0 ? key : key.substring(0, u);
    }

    /** One row per registered engine (zero when it has none), so a series never vanishes between scrapes. */
    private static List<MultiGauge.Row<?>> rows(EngineRegistry engines, Map<String, Integer> counts) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (String engine : engines.names()) {
            rows.add(MultiGauge.Row.of(Tags.of("engine", engine), counts.getOrDefault(engine, 0)));
        }
        return rows;
    }
}
