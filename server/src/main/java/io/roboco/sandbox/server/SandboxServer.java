package io.roboco.sandbox.server;

import io.javalin.Javalin;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.janitor.Janitor;
import io.roboco.sandbox.lifecycle.Capacity;
import io.roboco.sandbox.lifecycle.Lifetimes;
import io.roboco.sandbox.lifecycle.SandboxBook;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.mcp.AgentTokens;
import io.roboco.sandbox.mcp.McpBridge;
import io.roboco.sandbox.mcp.McpEndpoint;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.plugin.OrchestratorHandle;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.pool.PoolSizes;
import io.roboco.sandbox.pool.WarmPool;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.settings.FlagStore;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.verbs.AgentVerbs;
import io.roboco.sandbox.web.Dashboard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The composition root of the standalone server: configuration from the environment, the settings
 * store, the container runtime, the engine registry, the plugin, the janitor and the HTTP API on
 * 127.0.0.1. {@link #start} runs the same wiring in-process for tests.
 */
public final class SandboxServer {
    private static final Logger log = LoggerFactory.getLogger(SandboxServer.class);
    public static final String SHUTDOWN_VERB = "server_shutdown";
    /** How long shutdown waits for provisioning calls under way before removing what they started. */
    static final java.time.Duration DRAIN_TIMEOUT = java.time.Duration.ofSeconds(20);

    private SandboxServer() {
    }

    /** The jar's old entry point; {@code io.roboco.sandbox.cli.Cli} is the main class now (serve, doctor, list, …). */
    public static void main(String[] args) {
        if (args.length > 0 && "mcp".equals(args[0])) {
            System.exit(mcpBridge());
        }
        int code = serve(System.getenv());
        if (code != 0) {
            System.exit(code);
        }
    }

    /**
     * {@code roboco-sandbox serve}: the production server from {@code env}. Returns 0 once it listens (it keeps running
     * on its own threads, and closes on JVM shutdown), 2 for a refused configuration, 1 when it could not start.
     */
    public static int serve(Map<String, String> env) {
        ServerConfig config;
        try {
            config = ServerConfig.fromEnv(env);
        } catch (ConfigException e) {
            System.err.println("roboco-sandbox: refusing to start: " + e.getMessage());
            return 2;
        }
        RunningServer server;
        try {
            server = Production.start(config);
        } catch (ConfigException e) {
            System.err.println("roboco-sandbox: refusing to start: " + e.getMessage());
            return 2;
        } catch (RuntimeException e) {
            // Store and runtime faults carry operator-safe messages (URLs redacted, what to check).
            System.err.println("roboco-sandbox: could not start: " + e.getMessage());
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "roboco-sandbox-shutdown"));
        log.info("roboco-sandbox listening on http://{}:{} (instance {})", config.bind(), server.port(), server.instanceId());
        return 0;
    }

    /** {@code roboco-sandbox mcp}: MCP on stdio, bridged to the running server's /mcp. Stdout carries MCP only. */
    public static int mcpBridge() {
        BridgeSettings settings;
        try {
            settings = BridgeSettings.fromEnv(System.getenv());
        } catch (ConfigException e) {
            System.err.println("roboco-sandbox mcp: refusing to start: " + e.getMessage());
            return 2;
        }
        // Stdout is the MCP channel: whatever else would print there (a log appender, a library) goes to stderr.
        PrintStream protocol = System.out;
        System.setOut(System.err);
        return new McpBridge(settings.server(), settings.token(), Duration.ofMinutes(3)).run(System.in, protocol, System.err);
    }

    /**
     * Starts the server in this process. Takes ownership of {@code runtime} and {@code store}:
     * closing the returned server closes them.
     */
    public static RunningServer start(ServerConfig config, ContainerRuntime runtime, EngineRegistry registry,
                                      SettingsStore store, Clock clock) {
        return start(config, runtime, registry, store, clock, System.out);
    }

    /** As {@link #start(ServerConfig, ContainerRuntime, EngineRegistry, SettingsStore, Clock)}, with the secrets injected (security tests plant a canary). */
    public static RunningServer start(ServerConfig config, ContainerRuntime runtime, EngineRegistry registry,
                                      SettingsStore store, Clock clock, SecretSource secrets) {
        return start(config, runtime, registry, store, clock, System.out, secrets);
    }

    static RunningServer start(ServerConfig config, ContainerRuntime runtime, EngineRegistry registry,
                               SettingsStore store, Clock clock, PrintStream console) {
        return start(config, runtime, registry, store, clock, console, SecretSource.secure());
    }

    private static RunningServer start(ServerConfig config, ContainerRuntime runtime, EngineRegistry registry,
                                       SettingsStore store, Clock clock, PrintStream console, SecretSource secrets) {
        config.validateAgainst(registry);
        SecretSafeLogging.check();
        StateDir state = StateDir.open(config.stateDir());
        String instanceId = state.instanceId();
        StateDir.Token apiToken = state.token("api-token", config.apiToken());
        StateDir.Token adminToken = state.token("admin-token", config.adminToken());
        if (apiToken.value().equals(adminToken.value())) {
            throw new ConfigException("the orchestrator and admin tokens must differ; change ROBOCO_SANDBOX_API_TOKEN or ROBOCO_SANDBOX_ADMIN_TOKEN");
        }
        boolean flagEffective = config.dbEnabledOverride() != null ? config.dbEnabledOverride()
                : store.storedFlag(FlagStore.SANDBOX_DB_ENABLED).orElse(false);

        ServerLifecycle lifecycle = new ServerLifecycle();
        ProvisionSettings provisioning = provisioning(config, instanceId);
        ServiceProvisioner provisioner = new ServiceProvisioner(runtime, provisioning, secrets, clock);
        // Saved templates: <state>/templates/<project>/<name>.sql + <name>.json, capped per project (containment issue).
        provisioner.useTemplates(new io.roboco.sandbox.template.DirectoryTemplateStore(state.path().resolve("templates"),
                config.data().templates()));
        PoolSizes poolSizes = new PoolSizes(config.poolKeys(), config.seededPoolSize());
        WarmPool pool = poolSizes.enabled() ? new WarmPool(registry, provisioner, poolSizes) : null;
        SandboxManager manager = new SandboxManager(registry, provisioner, clock, pool);
        LifecycleConfig limits = config.lifecycle();
        // Every container this process keeps (in flight, pending, pooled, claimed, held, recorded) counts.
        Capacity capacity = new Capacity(capacityOf(limits, runtime, provisioning), () -> provisioner.ledger().ownedIds().size());
        SandboxBook book = new SandboxBook(store, instanceId, new Lifetimes(limits.ttlDefault(), limits.ttlMax()), limits.maxPerOwner(),
                capacity, clock, provisioner.ledger());
        if (pool != null) {
            pool.limitedBy(() -> capacity.tryReserve(1).map(hold -> (Runnable) hold));
        }
        SandboxPlugin plugin = new SandboxPlugin(registry, manager, store, flagEffective, lifecycle, clock);
        Restarts restarts = Restarts.prepare(config.restart(), config.secretKeyFile(), store, instanceId, book, pool);
        Sandboxes sandboxes = restarts.keeping() ? plugin.keepRecords(book, restarts.vault()) : plugin.keepRecords(book);
        AgentVerbs verbs = new AgentVerbs(plugin, clock);
        SandboxMetrics metrics = new SandboxMetrics(registry, manager, book, capacity);
        plugin.withEvents(metrics);
        // The ledger knows every container this process keeps (in flight, pending, pooled, claimed, held, recorded).
        Janitor janitor = new Janitor(runtime, instanceId, provisioner.ledger(), store, clock, config.janitorGrace());
        JanitorChores.register(janitor, store, instanceId, sandboxes, limits.auditRetention());
        janitor.onOrphansRemoved(n -> plugin.events().janitorRemoved("orphan", n));
        java.time.Instant started = clock.instant();
        java.util.function.Supplier<Doctor> doctor = () -> new Doctor(config, registry, provisioning, () -> runtime, () -> store,
                new Doctor.Live(plugin.flagEffective(), poolSizes.sizes(), poolIdle(manager), capacity.used(),
                        capacity.limited() ? capacity.max() : Integer.MAX_VALUE, janitor.lastTick(), started, config.janitorTick()),
                clock, Doctor.findRepoRoot(System.getenv()));

        try {
            runtime.ping();
        } catch (RuntimeException e) {
            log.warn("container runtime not reachable at start ({}); request_sandbox answers invalid_state until it is",
                    e.getMessage());
        }

        EdgeSettings edge = config.edge();
        AgentTokens agentTokens = new AgentTokens(store, edge.tokenTtl(), clock);
        McpEndpoint mcp = McpEndpoint.create(plugin, verbs, agentTokens, adminToken.value(), config.mcp().inspection(),
                config.mcp().allowedHosts(), () -> Doctor.toJson(doctor.get().run()), version(),
                new McpEndpoint.AgentShare(edge.maxConcurrentCalls(), edge.callsPerMinute(), edge.maxSessions(), edge.sessionIdle()), clock);
        AgentRoutes agentRoutes = new AgentRoutes(verbs, agentTokens, config.mcp()::url);
        Javalin app = ApiApp.create(new TokenAuth(apiToken.value(), adminToken.value()), lifecycle, edge,
                new AdminRoutes(plugin, config.dbEnabledOverride(), clock), agentRoutes,
                new SandboxRoutes(sandboxes, new io.roboco.sandbox.plugin.ForeignOrphans(runtime, store, store, instanceId,
                        aliveWindow(config.janitorTick()), clock), plugin, clock), new OpsRoutes(doctor, metrics), mcp::mount);
        Dashboard.register(app, plugin.console(), config.dbEnabledOverride(), adminToken.value(), clock);
        if (!config.loopbackOnly()) {
            log.warn("ROBOCO_SANDBOX_BIND={}: the API and dashboard listen beyond this machine over plain HTTP (no TLS); tokens and "
                    + "sandbox credentials cross the network in clear text. Put a TLS proxy in front, or bind 127.0.0.1", config.bind());
        }
        app.start(config.bind(), config.port());
        agentRoutes.listeningOn(app.port());
        // Still STARTING: request_sandbox answers retryably (guard 5) until every record is re-adopted or closed.
        restarts.readopt(registry, provisioner, manager, pool, clock, plugin::appendAudit);

        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "roboco-sandbox-janitor");
            t.setDaemon(true);
            return t;
        });
        janitor.start(scheduler, config.janitorTick());

        if (pool != null) {
            pool.start();
            int seededPools = poolSizes.seeded() > 0 ? primeSeededPools(plugin, store) : 0;
            log.info("warm pool filling in the background: {} ready container(s) per engine{}", poolSizes.sizes(),
                    poolSizes.seeded() > 0 ? ", " + poolSizes.seeded() + " per seeded project (" + seededPools + " seeded pool(s) now)" : "");
        }
        lifecycle.moveTo(OrchestratorHandle.State.RUNNING);
        log.info("sandbox feature flag {} is {} (stored {}, env override {})", FlagStore.SANDBOX_DB_ENABLED,
                flagEffective ? "on" : "off", store.storedFlag(FlagStore.SANDBOX_DB_ENABLED).map(String::valueOf).orElse("unset"),
                config.dbEnabledOverride() == null ? "unset" : config.dbEnabledOverride());
        // Shown once, at the start that generated them; later starts read them silently.
        if (apiToken.generated()) {
            console.println("orchestrator token written to " + apiToken.file() + ": " + apiToken.value());
        }
        if (adminToken.generated()) {
            console.println("admin token written to " + adminToken.file() + ": " + adminToken.value());
        }
        return new Running(app, mcp, lifecycle, janitor, scheduler, plugin, runtime, store, instanceId, restarts.keeping());
    }

    /** The jar's version (its manifest), or {@code dev} when run from classes. */
    static String version() {
        String v = SandboxServer.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    /** The configured capacity, or one derived from the Docker host's memory: 3/4 of it over the per-container memory limit. */
    static int capacityOf(LifecycleConfig limits, ContainerRuntime runtime, ProvisionSettings provisioning) {
        if (limits.maxContainers() != null) {
            log.info("capacity: {} sandbox containers (ROBOCO_SANDBOX_MAX_CONTAINERS)", limits.maxContainers());
            return limits.maxContainers();
        }
        long perContainer = provisioning.limits().memoryBytes();
        long memory;
        try {
            memory = runtime.info().memoryBytes();
        } catch (RuntimeException e) {
            memory = 0;
        }
        if (memory <= 0 || perContainer <= 0) {
            log.warn("capacity: the container runtime did not say how much memory its host has; allowing {} sandbox containers"
                    + " (set ROBOCO_SANDBOX_MAX_CONTAINERS to choose)", FALLBACK_CAPACITY);
            return FALLBACK_CAPACITY;
        }
        int derived = (int) Math.max(1, Math.min(100_000, memory / 4 * 3 / perContainer));
        log.info("capacity: {} sandbox containers, derived from the Docker host's memory ({} MiB x 3/4 / {} MiB per container);"
                + " set ROBOCO_SANDBOX_MAX_CONTAINERS to choose", derived, memory >> 20, perContainer >> 20);
        return derived;
    }

    static final int FALLBACK_CAPACITY = 32;

    /** How sandboxes are started, from the configuration. */
    static ProvisionSettings provisioning(ServerConfig config, String instanceId) {
        return ProvisionSettings.defaults(instanceId).withImages(config.defaultImages()).withMajorImages(config.majorImages())
                .withNetwork(config.network()).withReadyTimeout(config.readyTimeout()).withMaxLimits(config.maxLimits());
    }

    /** Ready warm-pool containers per pool key. */
    /** Every saved project's seeded pools begin to fill at start (re-adopted ones learn their recipe); a store fault primes none. */
    private static int primeSeededPools(SandboxPlugin plugin, SettingsStore store) {
        try {
            java.util.List<io.roboco.sandbox.settings.Project> projects = store.allProjects();
            plugin.manager().pool().ifPresent(pool -> pool.retainSeededProjects(
                    projects.stream().map(io.roboco.sandbox.settings.Project::id).collect(java.util.stream.Collectors.toSet())));   // re-adopted for a deleted project
            return projects.stream().mapToInt(plugin::primeSeededPools).sum();
        } catch (RuntimeException e) {
            log.warn("seeded warm pools not primed at start ({}); each is made at its project's first request", e.getMessage());
            return 0;
        }
    }

    static Map<String, Integer> poolIdle(SandboxManager manager) {
        Map<String, Integer> idle = new TreeMap<>();
        manager.pool().ifPresent(pool -> {
            pool.sizes().sizes().keySet().forEach(key -> idle.put(key, pool.idle(key)));
            if (pool.sizes().seeded() > 0) {
                idle.put(ServerConfig.SEEDED_KEY, pool.idleSeeded());
            }
        });
        return idle;
    }

    /**
     * How recent another instance's heartbeat must be for it to count as alive (foreign cleanup never touches its
     * containers): three of this server's janitor ticks, and at least two minutes.
     */
    static java.time.Duration aliveWindow(java.time.Duration tick) {
        java.time.Duration three = tick.multipliedBy(3);
        return three.compareTo(java.time.Duration.ofMinutes(2)) < 0 ? java.time.Duration.ofMinutes(2) : three;
    }

    private static final class Running implements RunningServer {
        private final Javalin app;
        private final McpEndpoint mcp;
        private final ServerLifecycle lifecycle;
        private final Janitor janitor;
        private final ScheduledExecutorService scheduler;
        private final SandboxPlugin plugin;
        private final ContainerRuntime runtime;
        private final SettingsStore store;
        private final String instanceId;
        /** A graceful shutdown keeps the agents' sandboxes for the next start to re-adopt (never the idle pool). */
        private final boolean keepSandboxes;
        private final int port;
        private final AtomicBoolean closed = new AtomicBoolean();

        Running(Javalin app, McpEndpoint mcp, ServerLifecycle lifecycle, Janitor janitor, ScheduledExecutorService scheduler,
                SandboxPlugin plugin, ContainerRuntime runtime, SettingsStore store, String instanceId, boolean keepSandboxes) {
            this.keepSandboxes = keepSandboxes;
            this.app = app;
            this.mcp = mcp;
            this.lifecycle = lifecycle;
            this.janitor = janitor;
            this.scheduler = scheduler;
            this.plugin = plugin;
            this.runtime = runtime;
            this.store = store;
            this.instanceId = instanceId;
            this.port = app.port();
        }

        @Override
        public int port() {
            return port;
        }

        @Override
        public String instanceId() {
            return instanceId;
        }

        @Override
        public Map<String, Integer> poolIdle() {
            Map<String, Integer> idle = new TreeMap<>();
            plugin.manager().pool().ifPresent(pool -> {
                pool.sizes().sizes().keySet().forEach(engine -> idle.put(engine, pool.idle(engine)));
                if (pool.sizes().seeded() > 0) {
                    idle.put(ServerConfig.SEEDED_KEY, pool.idleSeeded());
                }
            });
            return idle;
        }

        @Override
        public io.roboco.sandbox.janitor.SweepReport sweepNow() {
            return janitor.sweepOnce();
        }

        @Override
        public io.roboco.sandbox.janitor.SweepReport tickNow() {
            return janitor.tickOnce();
        }

        /**
         * STOPPING; stop serving; stop the janitor; let the provisioning calls under way end (bounded) and refuse new
         * ones; remove the warm pool's idle containers (nothing idle outlives a stop, whether or not this instance ever
         * starts again); then, with re-adoption on, keep every live sandbox (sealed in the store) for the next start to
         * re-adopt, so a deploy is invisible to working agents; with it off ({@code ROBOCO_SANDBOX_READOPT=false}, or no
         * usable key) tear down every live sandbox.
         * Either way remove whatever the ledger still holds as being started or claimed; close the plugin, the
         * runtime, and the store last (a release's audit record kept while the store refused it is written then).
         */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            lifecycle.moveTo(OrchestratorHandle.State.STOPPING);
            int live = plugin.manager().live().size();
            log.info(keepSandboxes ? "stopping: new requests are refused as retryable; {} live sandbox(es) are kept for the next start"
                    + " to re-adopt" : "stopping: new requests are refused as retryable; {} live sandbox(es) will be released", live);
            quietly("close MCP sessions", mcp::close);
            quietly("stop HTTP", app::stop);
            quietly("stop janitor", janitor::close);
            quietly("stop scheduler", scheduler::shutdownNow);
            quietly("wait for provisioning under way", this::drain);
            plugin.manager().pool().ifPresent(pool -> quietly("remove warm pool", pool::close));
            if (!keepSandboxes) {
                for (AgentSandbox sandbox : plugin.manager().live()) {
                    quietly("release " + sandbox.agent(), () -> plugin.releaseSandbox(sandbox.agent(), SHUTDOWN_VERB));
                }
            }
            quietly("remove containers still starting", () -> plugin.manager().removeUnsettled());
            log.info(keepSandboxes ? "stopped: {} sandbox(es) kept for re-adoption (ROBOCO_SANDBOX_READOPT=true), idle warm pool removed"
                    : "stopped: sandboxes released, warm pool removed", plugin.manager().live().size());
            quietly("close plugin", plugin::close);
            quietly("close runtime", runtime::close);
            quietly("close store", store::close);
        }

        private void drain() {
            try {
                int left = plugin.manager().drain(DRAIN_TIMEOUT);
                if (left > 0) {
                    log.warn("{} provisioning call(s) still under way after {} s; their containers are removed", left,
                            DRAIN_TIMEOUT.toSeconds());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private static void quietly(String what, Runnable step) {
            try {
                step.run();
            } catch (RuntimeException e) {
                log.warn("shutdown step '{}' failed: {}: {}", what, e.getClass().getSimpleName(), e.getMessage());
            }
        }
    }
}
