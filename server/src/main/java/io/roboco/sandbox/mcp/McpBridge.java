package io.roboco.sandbox.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * {@code roboco-sandbox mcp}: an MCP server on stdio that is a bridge to a running server's {@code /mcp},
 * so whichever transport an agent uses there is one store and one janitor. On start it opens a
 * Streamable HTTP session with the agent's token (the MCP Java SDK's client), lists the tools that token
 * may see and offers exactly those on stdio (the SDK's server); every call is forwarded as is, so the
 * server's gate validates, scopes and audits it. Tool errors come back as results, protocol errors as
 * errors, both unchanged. Nothing but MCP messages is written to stdout; diagnostics go to stderr.
 */
public final class McpBridge {
    /** Exit codes: 0 stdin closed (the client went away), 1 the server could not be used, 2 bad settings. */
    public static final int OK = 0;

    public static final int UNAVAILABLE = 1;

    private final URI server;
    private final String token;
    private final Duration timeout;

    /** @param server the server's base address ({@code ROBOCO_SANDBOX_URL}); its MCP endpoint is {@code <server>/mcp} */
    public McpBridge(URI server, String token, Duration timeout) {
        this.server = server;
        this.token = token;
        this.timeout = timeout;
    }

    /** Serves stdio until {@code in} ends; answers the exit code. */
    public int run(InputStream in, OutputStream out, PrintStream err) {
        JacksonMcpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
        McpSyncClient remote = McpClient.sync(HttpClientStreamableHttpTransport.builder(base())
                        .endpoint(endpointPath())
                        .jsonMapper(json)
                        .connectTimeout(Duration.ofSeconds(5))
                        .httpRequestCustomizer((request, method, uri, body, context) ->
                                request.header("Authorization", "Bearer " + token))
                        .build())
                .clientInfo(new McpSchema.Implementation("roboco-sandbox-stdio-bridge", "1"))
                .requestTimeout(timeout)
                .build();
        List<McpSchema.Tool> tools;
        McpSchema.InitializeResult init;
        try {
            init = remote.initialize();
            tools = remote.listTools().tools();
        } catch (RuntimeException e) {
            err.println("roboco-sandbox mcp: " + explain(e));
            closeQuietly(remote);
            return UNAVAILABLE;
        }

        CountDownLatch ended = new CountDownLatch(1);
        Set<String> names = new HashSet<>();
        tools.forEach(tool -> names.add(tool.name()));
        ExecutorService reporter = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "roboco-mcp-bridge-unknown-tools");
            thread.setDaemon(true);
            return thread;
        });
        List<McpServerFeatures.SyncToolSpecification> forwarded = new ArrayList<>();
        for (McpSchema.Tool tool : tools) {
            forwarded.add(McpServerFeatures.SyncToolSpecification.builder()
                    .tool(tool)
                    .callHandler((exchange, request) -> forward(remote, request))
                    .build());
        }
        McpSyncServer stdio = McpServer.sync(new StdioServerTransportProvider(
                        json,
                        watch(in, ended, name -> {
                            if (!names.contains(name)) {
                                reporter.execute(() -> reportUnknown(remote, name));
                            }
                        }),
                        out))
                .serverInfo(init.serverInfo())
                .instructions(init.instructions())
                .capabilities(
                        McpSchema.ServerCapabilities.builder().tools(false).build())
                .jsonMapper(json)
                .validateToolInputs(false)
                .tools(forwarded)
                .build();
        err.println(
                "roboco-sandbox mcp: bridging stdio to " + base() + endpointPath() + " (" + tools.size() + " tools)");
        try {
            ended.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stdio.closeGracefully();
        reporter.shutdownNow();
        closeQuietly(remote);
        return OK;
    }

    /**
     * The stdio SDK server answers a call of a name it has no tool for by itself (JSON-RPC -32602); the same
     * call is sent on to the server as well, so that its gate records it like every other call. Its answer
     * (the same protocol error) is dropped: the agent already has the local one.
     */
    private static void reportUnknown(McpSyncClient remote, String name) {
        try {
            remote.callTool(new McpSchema.CallToolRequest(name, Map.of()));
        } catch (RuntimeException expected) {
            // "Unknown tool", recorded by the server's gate
        }
    }

    private McpSchema.CallToolResult forward(McpSyncClient remote, McpSchema.CallToolRequest request) {
        try {
            return remote.callTool(request);
        } catch (McpError e) {
            throw e; // a protocol error of the server's (unknown tool, malformed arguments): passed on unchanged
        } catch (RuntimeException e) {
            throw McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR)
                    .message(explain(e))
                    .build();
        }
    }

    /** What went wrong talking to the server, as an operator or agent can act on it; never the token. */
    String explain(Throwable e) {
        String chain = chain(e);
        String where = base() + endpointPath();
        if (chain.contains("McpHttpClientTransportAuthorizationException") || chain.contains(" 401")) {
            return "the server at " + where + " refused ROBOCO_SANDBOX_MCP_TOKEN (HTTP 401): it is wrong, was replaced"
                    + " or was revoked; ask the orchestrator for a new one (POST /api/agents/{slug}/token)";
        }
        if (chain.contains("ConnectException")
                || chain.contains("Connection refused")
                || chain.contains("HttpConnectTimeout")) {
            return "no RoboCo Sandbox server answers at " + base()
                    + "; start it (./scripts/run.sh) or set ROBOCO_SANDBOX_URL";
        }
        return "the server at " + where + " could not be used (" + e.getClass().getSimpleName() + ")";
    }

    private static String chain(Throwable e) {
        StringBuilder s = new StringBuilder();
        for (Throwable t = e; t != null && s.length() < 4000; t = t.getCause()) {
            s.append(t.getClass().getName()).append(": ").append(t.getMessage()).append('\n');
        }
        return s.toString();
    }

    private String base() {
        String s = server.toString();
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    private static String endpointPath() {
        return McpEndpoint.PATH;
    }

    private static void closeQuietly(McpSyncClient client) {
        try {
            client.closeGracefully();
        } catch (RuntimeException ignored) {
            // the server may be gone; nothing left to release here
        }
    }

    /**
     * {@code in}, counting {@code ended} down once it reaches its end (the MCP client closed our stdin), and
     * telling {@code toolCalled} the name of every tools/call that passes (one JSON-RPC message per line).
     */
    private static InputStream watch(InputStream in, CountDownLatch ended, Consumer<String> toolCalled) {
        ObjectMapper mapper = new ObjectMapper();
        return new FilterInputStream(in) {
            private final ByteArrayOutputStream line = new ByteArrayOutputStream();

            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b < 0) {
                    ended.countDown();
                } else {
                    seen((byte) b);
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                if (n < 0) {
                    ended.countDown();
                }
                for (int i = 0; i < n; i++) {
                    seen(b[off + i]);
                }
                return n;
            }

            private void seen(byte b) {
                if (b != '\n') {
                    if (line.size() < McpAuthFilter.MAX_BODY) {
                        line.write(b);
                    }
                    return;
                }
                try {
                    JsonNode message = mapper.readTree(line.toByteArray());
                    if (message != null
                            && "tools/call".equals(message.path("method").asText())) {
                        toolCalled.accept(message.path("params").path("name").asText(""));
                    }
                } catch (IOException | RuntimeException notJson) {
                    // the SDK answers the parse error
                }
                line.reset();
            }

            @Override
            public void close() throws IOException {
                ended.countDown();
                super.close();
            }
        };
    }
}
