package io.roboco.sandbox.server;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.janitor.JanitorExtension;
import io.roboco.sandbox.janitor.SweepReport;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.mcp.McpBridge;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.provision.StartQueue;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.server.config.BridgeSettings;
import io.roboco.sandbox.server.config.ConfigException;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.server.health.SandboxMetrics;
import io.roboco.sandbox.settings.FlagStore;
import io.roboco.sandbox.settings.SettingsStore;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root of the standalone server: configuration from the environment, the settings
 * store, the container runtime, the engine registry, the plugin, the janitor and the HTTP API on
 * 127.0.0.1. {@link #start} runs the same wiring in-process for tests.
 */
public final class SandboxServer {
    private static final Logger log = LoggerFactory.getLogger(SandboxServer.class);
    public static final String SHUTDOWN_VERB = "server_shutdown";

    private SandboxServer() {}

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
        log.info(
                "roboco-sandbox listening on http://{}:{} (instance {})",
                config.bind(),
                server.port(),
                server.instanceId());
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
        return new McpBridge(settings.server(), settings.token(), Duration.ofMinutes(3))
                .run(System.in, protocol, System.err);
    }

    /**
     * Starts the server in this process. Takes ownership of {@code runtime} and {@code store}:
     * closing the returned server closes them.
     */
    public static RunningServer start(
            ServerConfig config, ContainerRuntime runtime, EngineRegistry registry, SettingsStore store, Clock clock) {
        return start(config, runtime, registry, store, clock, System.out);
    }

    /** As {@link #start(ServerConfig, ContainerRuntime, EngineRegistry, SettingsStore, Clock)}, with the secrets injected (security tests plant a canary). */
    public static RunningServer start(
            ServerConfig config,
            ContainerRuntime runtime,
            EngineRegistry registry,
            SettingsStore store,
            Clock clock,
            SecretSource secrets) {
        return start(config, runtime, registry, store, clock, System.out, secrets);
    }

    static RunningServer start(
            ServerConfig config,
            ContainerRuntime runtime,
            EngineRegistry registry,
            SettingsStore store,
            Clock clock,
            PrintStream console) {
        return start(config, runtime, registry, store, clock, console, SecretSource.secure());
    }

    /** Config → builder → extensions (metrics, HTTP API with MCP and dashboard, janitor) → a running plugin. */
    private static RunningServer start(
            ServerConfig config,
            ContainerRuntime runtime,
            EngineRegistry registry,
            SettingsStore store,
            Clock clock,
            PrintStream console,
            SecretSource secrets) {
        config.validateAgainst(registry);
        SecretSafeLogging.check();
        StateDir state = StateDir.open(config.stateDir());
        ServerTokens tokens = ServerTokens.open(state, config);
        warnIfUnreachable(runtime);
        SandboxMetrics metrics = new SandboxMetrics(clock);
        JanitorExtension janitor = JanitorExtension.every(
                config.janitorTick(), config.janitorGrace(), config.lifecycle().auditRetention());
        HttpApi http = new HttpApi(config, tokens, metrics, janitor);
        SandboxPlugin plugin = ServerWiring.builder(config, state, runtime, registry, store, clock, secrets)
                .events(metrics)
                .extension(metrics)
                .extension(http)
                .extension(janitor)
                .build();
        logFlag(plugin, store, config);
        tokens.announce(console);
        return new Running(plugin, http, janitor, runtime, store, state.instanceId());
    }

    /** A runtime that does not answer at start is not fatal: request_sandbox answers invalid_state until it does. */
    private static void warnIfUnreachable(ContainerRuntime runtime) {
        try {
            runtime.ping();
        } catch (RuntimeException e) {
            log.warn(
                    "container runtime not reachable at start ({}); request_sandbox answers invalid_state until it is",
                    e.getMessage());
        }
    }

    private static void logFlag(SandboxPlugin plugin, SettingsStore store, ServerConfig config) {
        log.info(
                "sandbox feature flag {} is {} (stored {}, env override {})",
                FlagStore.SANDBOX_DB_ENABLED,
                plugin.flagEffective() ? "on" : "off",
                store.storedFlag(FlagStore.SANDBOX_DB_ENABLED)
                        .map(String::valueOf)
                        .orElse("unset"),
                config.dbEnabledOverride() == null ? "unset" : config.dbEnabledOverride());
    }

    /** {@code "METHOD /path"} of every API route a server started here serves (the OpenAPI contract test's view). */
    static Set<String> routesOf(RunningServer server) {
        return ((Running) server).http.routes();
    }

    /** The jar's version (its manifest), or {@code dev} when run from classes. */
    static String version() {
        String v = SandboxServer.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
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
    static Duration aliveWindow(Duration tick) {
        Duration three = tick.multipliedBy(3);
        return three.compareTo(Duration.ofMinutes(2)) < 0 ? Duration.ofMinutes(2) : three;
    }

    /** A started server: the plugin (whose close ends its extensions), and the runtime and store it was given. */
    private static final class Running implements RunningServer {
        private final SandboxPlugin plugin;
        private final HttpApi http;
        private final int port;
        private final JanitorExtension janitor;
        private final ContainerRuntime runtime;
        private final SettingsStore store;
        private final String instanceId;
        private final AtomicBoolean closed = new AtomicBoolean();

        Running(
                SandboxPlugin plugin,
                HttpApi http,
                JanitorExtension janitor,
                ContainerRuntime runtime,
                SettingsStore store,
                String instanceId) {
            this.plugin = plugin;
            this.http = http;
            this.port = http.port();
            this.janitor = janitor;
            this.runtime = runtime;
            this.store = store;
            this.instanceId = instanceId;
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
            return SandboxServer.poolIdle(plugin.manager());
        }

        @Override
        public StartQueue startQueue() {
            return plugin.manager().provisioner().startQueue();
        }

        @Override
        public SweepReport sweepNow() {
            return janitor.janitor().orElseThrow().sweepOnce();
        }

        @Override
        public SweepReport tickNow() {
            return janitor.janitor().orElseThrow().tickOnce();
        }

        /**
         * The plugin's close (STOPPING; MCP, HTTP and the janitor end; provisioning under way drains; with re-adoption on
         * every live sandbox and the idle pool are kept for the next start, with it off they are released), then the
         * runtime, and the store last (a release's audit record kept while the store refused it is written then).
         */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            quietly("close plugin", plugin::close);
            quietly("close runtime", runtime::close);
            quietly("close store", store::close);
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
