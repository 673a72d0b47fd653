package io.roboco.sandbox.server;

import io.javalin.Javalin;
import io.roboco.sandbox.idempotency.IdempotentCalls;
import io.roboco.sandbox.janitor.JanitorExtension;
import io.roboco.sandbox.mcp.AgentTokens;
import io.roboco.sandbox.mcp.McpEndpoint;
import io.roboco.sandbox.plugin.ForeignOrphans;
import io.roboco.sandbox.plugin.PluginContext;
import io.roboco.sandbox.plugin.PluginExtension;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.progress.ProgressTicker;
import io.roboco.sandbox.progress.TemplateTraffic;
import io.roboco.sandbox.server.config.EdgeSettings;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.server.health.Doctor;
import io.roboco.sandbox.server.health.SandboxMetrics;
import io.roboco.sandbox.server.http.AdminRoutes;
import io.roboco.sandbox.server.http.AgentRoutes;
import io.roboco.sandbox.server.http.ApiApp;
import io.roboco.sandbox.server.http.ClientRoutes;
import io.roboco.sandbox.server.http.ClientTokens;
import io.roboco.sandbox.server.http.OpenApi;
import io.roboco.sandbox.server.http.OpsRoutes;
import io.roboco.sandbox.server.http.SandboxRoutes;
import io.roboco.sandbox.server.http.TokenAuth;
import io.roboco.sandbox.verbs.AgentVerbs;
import io.roboco.sandbox.web.Dashboard;
import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's front doors as one plugin extension: the HTTP API, MCP at {@code /mcp} and the dashboard, on
 * {@code ROBOCO_SANDBOX_BIND}:{@code ROBOCO_SANDBOX_PORT}. Started before re-adoption, so callers are answered (requests
 * refused as retryable) while the plugin is still STARTING; closing ends the MCP sessions and Jetty's threads.
 */
final class HttpApi implements PluginExtension {
    private static final Logger log = LoggerFactory.getLogger(HttpApi.class);

    private final ServerConfig config;
    private final ServerTokens tokens;
    private final SandboxMetrics metrics;
    private final JanitorExtension janitor;
    private volatile int port = -1;
    private volatile Javalin app;

    HttpApi(ServerConfig config, ServerTokens tokens, SandboxMetrics metrics, JanitorExtension janitor) {
        this.config = config;
        this.tokens = tokens;
        this.metrics = metrics;
        this.janitor = janitor;
    }

    @Override
    public Stage stage() {
        return Stage.FRONT_DOOR;
    }

    @Override
    public AutoCloseable start(PluginContext context) {
        SandboxPlugin plugin = context.plugin();
        AgentVerbs verbs = new AgentVerbs(plugin, context.clock());
        Supplier<Doctor> doctor = () -> doctor(context);
        EdgeSettings edge = config.edge();
        AgentTokens agentTokens = new AgentTokens(context.store(), edge.tokenTtl(), context.clock());
        // Progress of long calls (MCP notifications, streamed HTTP answers): one tick a second, one thread.
        ProgressTicker ticker = new ProgressTicker(Duration.ofSeconds(1), "roboco-sandbox-progress");
        McpEndpoint mcp = McpEndpoint.create(
                plugin,
                verbs,
                agentTokens,
                tokens.admin(),
                config.mcp().inspection(),
                config.mcp().allowedHosts(),
                () -> Doctor.toJson(doctor.get().run()),
                SandboxServer.version(),
                new McpEndpoint.AgentShare(
                        edge.maxConcurrentCalls(), edge.callsPerMinute(), edge.maxSessions(), edge.sessionIdle()),
                ticker,
                plugin.templates() instanceof TemplateTraffic traffic ? traffic : null,
                context.clock());
        AgentRoutes agentRoutes = new AgentRoutes(verbs, agentTokens, config.mcp()::url, this::port);
        ForeignOrphans foreign = new ForeignOrphans(
                context.runtime(),
                context.store(),
                plugin.audit(),
                context.instanceId(),
                SandboxServer.aliveWindow(config.janitorTick()),
                context.clock());
        ClientTokens clientTokens = new ClientTokens(context.store(), context.clock());
        Javalin app = ApiApp.create(
                new TokenAuth(tokens.api(), tokens.admin(), clientTokens),
                context.state(),
                edge,
                new AdminRoutes(plugin, config.dbEnabledOverride(), context.clock()),
                agentRoutes,
                new SandboxRoutes(
                        context.sandboxes(),
                        foreign,
                        plugin,
                        IdempotentCalls.standard(context.clock()),
                        ticker,
                        context.clock()),
                new ClientRoutes(clientTokens),
                new OpsRoutes(doctor, metrics),
                mcp::mount);
        Dashboard.register(
                app,
                plugin.console(),
                metrics,
                clientTokens,
                config.dbEnabledOverride(),
                tokens.admin(),
                context.clock());
        if (!config.loopbackOnly()) {
            log.warn(
                    "ROBOCO_SANDBOX_BIND={}: the API and dashboard listen beyond this machine over plain HTTP (no TLS); tokens and "
                            + "sandbox credentials cross the network in clear text. Put a TLS proxy in front, or bind 127.0.0.1",
                    config.bind());
        }
        try {
            app.start(config.bind(), config.port());
        } catch (RuntimeException e) {
            mcp.close();
            ticker.close();
            throw e;
        }
        port = app.port();
        this.app = app;
        return () -> {
            try {
                mcp.close();
            } finally {
                try {
                    app.stop();
                } finally {
                    ticker.close();
                }
            }
        };
    }

    /** {@code "METHOD /path"} of every API route it serves (OpenApi.routes); empty before it started. */
    Set<String> routes() {
        Javalin a = app;
        return a == null ? Set.of() : OpenApi.routes(a);
    }

    /** The port it listens on; -1 before it started. */
    int port() {
        return port;
    }

    private Doctor doctor(PluginContext context) {
        SandboxPlugin plugin = context.plugin();
        return new Doctor(
                config,
                context.engines(),
                context.provisioning(),
                context::runtime,
                context::store,
                new Doctor.Live(
                        plugin.flagEffective(),
                        context.poolSizes().sizes(),
                        SandboxServer.poolIdle(plugin.manager()),
                        context.capacity().used(),
                        context.capacity().limited() ? context.capacity().max() : Integer.MAX_VALUE,
                        janitor.lastTick(),
                        context.started(),
                        config.janitorTick()),
                context.clock(),
                Doctor.findRepoRoot(System.getenv()));
    }
}
