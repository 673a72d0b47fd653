package io.roboco.sandbox.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.roboco.sandbox.idempotency.IdempotentCalls;
import io.roboco.sandbox.inspect.InspectionPolicy;
import io.roboco.sandbox.limits.FairShare;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.progress.ProgressTicker;
import io.roboco.sandbox.progress.TemplateTraffic;
import io.roboco.sandbox.verbs.AgentVerbs;
import jakarta.servlet.DispatcherType;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

/**
 * The MCP server over Streamable HTTP at {@value #PATH}, on the official MCP Java SDK.
 *
 * <p>How it mounts next to Javalin 6.7 (Jetty 11, Servlet 5): the SDK's transport,
 * {@link HttpServletStreamableServerTransportProvider}, is a Jakarta servlet; it is added to the
 * {@link ServletContextHandler} Javalin runs on ({@code config.jetty.modifyServletContextHandler}), mapped
 * to exactly {@value #PATH} (more specific than Javalin's own {@code /*}, so Javalin's routes and
 * before-handlers never see MCP traffic), async-supported for its SSE answers, with {@link McpAuthFilter}
 * in front of it. One {@link McpSyncServer} serves both audiences: tools/list is filtered per caller and
 * every tools/call goes through the {@link Gate}.
 */
public final class McpEndpoint implements AutoCloseable {
    public static final String PATH = "/mcp";
    public static final String SERVER_NAME = "roboco-sandbox";

    private final HttpServletStreamableServerTransportProvider transport;
    private final McpSyncServer server;
    private final McpAuthFilter auth;
    private final Gate gate;
    private final Inspectors inspectors;
    private final SdkThreads sdkThreads;

    private McpEndpoint(
            HttpServletStreamableServerTransportProvider transport,
            McpSyncServer server,
            McpAuthFilter auth,
            Gate gate,
            Inspectors inspectors,
            SdkThreads sdkThreads) {
        this.sdkThreads = sdkThreads;
        this.transport = transport;
        this.server = server;
        this.auth = auth;
        this.gate = gate;
        this.inspectors = inspectors;
    }

    /**
     * @param inspection   what the inspection tools allow ({@code ROBOCO_SANDBOX_MCP_ROW_CAP}, {@code ROBOCO_SANDBOX_MCP_FETCH_BYTES})
     * @param allowedHosts Host header values accepted ({@code ROBOCO_SANDBOX_MCP_ALLOWED_HOSTS}); any Origin is refused
     * @param doctor       the operator's health checks as {@code GET /api/doctor} answers them
     * @param ticker       progress of long calls, for clients that ask ({@code _meta.progressToken})
     * @param traffic      which template dumps are being read or written (null: the plugin's store does not say)
     */
    public static McpEndpoint create(
            SandboxPlugin plugin,
            AgentVerbs verbs,
            AgentTokens tokens,
            String adminToken,
            InspectionPolicy inspection,
            List<String> allowedHosts,
            Supplier<Map<String, Object>> doctor,
            String version,
            AgentShare share,
            ProgressTicker ticker,
            TemplateTraffic traffic,
            Clock clock) {
        ObjectMapper mapper = new ObjectMapper();
        JacksonMcpJsonMapper json = new JacksonMcpJsonMapper(mapper);
        Inspectors inspectors = new Inspectors(() -> liveContainers(plugin));
        Sandboxes sandboxes = plugin.sandboxes()
                .orElseThrow(
                        () -> new IllegalStateException(
                                "the MCP endpoint needs sandbox records (a plugin made by SandboxPlugin.builder()) to scope its tools"));
        OwnSandboxes own = new OwnSandboxes(plugin, sandboxes, clock);
        List<ToolSpec> specs = new ArrayList<>();
        specs.addAll(new VerbTools(plugin.service()).specs());
        specs.addAll(new SandboxTools(plugin, sandboxes, clock).specs());
        specs.addAll(new DoctorTool(doctor).specs());
        specs.addAll(new DataTools(verbs, plugin).specs());
        specs.addAll(new InspectTools(inspectors, inspection.maxRows(), plugin.registry()).specs());
        Gate gate = new Gate(
                specs,
                new DefaultJsonSchemaValidator(mapper),
                plugin.audit(),
                plugin.store(),
                plugin.guards(),
                own,
                inspection,
                new FairShare(share.maxConcurrentCalls(), share.callsPerMinute(), clock),
                IdempotentCalls.standard(clock),
                ticker,
                traffic == null ? project -> Optional.empty() : traffic::now,
                clock);

        SdkThreads.Caught<HttpServletStreamableServerTransportProvider> built =
                SdkThreads.catching(() -> HttpServletStreamableServerTransportProvider.builder()
                        .jsonMapper(json)
                        .mcpEndpoint(PATH)
                        .maxRequestSize(McpAuthFilter.MAX_BODY)
                        // Sessions unused for a whole sweep interval are closed by the SDK; SessionOwners forgets them
                        // as fast.
                        .sessionSweepInterval(share.sessionIdle())
                        .contextExtractor(request -> request.getAttribute(Caller.CONTEXT_KEY) instanceof Caller caller
                                ? McpTransportContext.create(Map.of(Caller.CONTEXT_KEY, caller))
                                : McpTransportContext.EMPTY)
                        // No allowed origins: a request with an Origin header (a browser page) is refused; agents send
                        // none.
                        .securityValidator(DefaultServerTransportSecurityValidator.builder()
                                .allowedHosts(allowedHosts)
                                .build())
                        .build());
        HttpServletStreamableServerTransportProvider transport = built.value();

        List<McpServerFeatures.SyncToolSpecification> tools = new ArrayList<>();
        for (ToolSpec spec : gate.tools()) {
            tools.add(McpServerFeatures.SyncToolSpecification.builder()
                    .tool(McpTools.describe(spec))
                    .callHandler((exchange, request) -> gate.call(
                            caller(exchange.transportContext()),
                            request.name(),
                            request.arguments(),
                            progress(exchange, request)))
                    .build());
        }
        McpSyncServer server = McpServer.sync(transport)
                .serverInfo(SERVER_NAME, version)
                .instructions(
                        "Throwaway, isolated databases for your current task. Call request_sandbox when your work needs"
                                + " a database; export the ROBOCO_TEST_* values it answers; call release_sandbox when done.")
                .capabilities(
                        McpSchema.ServerCapabilities.builder().tools(false).build())
                .jsonMapper(json)
                // The gate validates arguments (and audits the refusal); the SDK's own check would answer first,
                // unaudited.
                .validateToolInputs(false)
                .immediateExecution(true)
                .addToolFilter((context, tool) -> gate.visible(caller(context), tool.name()))
                .tools(tools)
                .build();
        return new McpEndpoint(
                transport,
                server,
                new McpAuthFilter(
                        adminToken, tokens, new SessionOwners(share.maxSessions(), share.sessionIdle(), clock), gate),
                gate,
                inspectors,
                built.threads());
    }

    /**
     * One agent token's fair share of the MCP server: tool calls under way, tool calls begun per minute, open sessions,
     * and how long an unused session lives.
     */
    public record AgentShare(int maxConcurrentCalls, int callsPerMinute, int maxSessions, Duration sessionIdle) {}

    /** Adds the auth filter and the SDK servlet at {@value #PATH} to Javalin's servlet context. */
    public void mount(ServletContextHandler handler) {
        FilterHolder filter = new FilterHolder(auth);
        filter.setAsyncSupported(true);
        handler.addFilter(filter, PATH, EnumSet.of(DispatcherType.REQUEST));
        ServletHolder servlet = new ServletHolder(transport);
        servlet.setAsyncSupported(true);
        handler.addServlet(servlet, PATH);
    }

    public Gate gate() {
        return gate;
    }

    /** Ends the MCP sessions, the SDK's threads and the inspection connections. */
    @Override
    public void close() {
        try {
            server.closeGracefully();
        } finally {
            sdkThreads.close();
            inspectors.close();
        }
    }

    private static Set<String> liveContainers(SandboxPlugin plugin) {
        return plugin.manager().heldContainerIds();
    }

    /** Where a call's progress goes: notifications on the call's stream, when the client sent a progress token. */
    private static ProgressTicker.Sink progress(McpSyncServerExchange exchange, McpSchema.CallToolRequest request) {
        Object token = request.meta() == null ? null : request.meta().get("progressToken");
        if (token == null) {
            return null;
        }
        return tick -> exchange.progressNotification(
                new McpSchema.ProgressNotification(token, (double) tick.step(), null, tick.message()));
    }

    private static Caller caller(McpTransportContext context) {
        Object caller = context == null ? null : context.get(Caller.CONTEXT_KEY);
        if (caller instanceof Caller c) {
            return c;
        }
        // Unreachable behind McpAuthFilter; fail closed if the wiring is ever wrong.
        throw new IllegalStateException("MCP request without an authenticated caller");
    }
}
