package io.roboco.sandbox.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One MCP session over Streamable HTTP with an agent's token, spoken as any client does on the wire:
 * JSON-RPC POSTs to {@code /mcp} accepting {@code application/json} and {@code text/event-stream}, the
 * session id the server handed out, the answer read from the SSE event. (The MCP SDK stays in the server
 * module; the benchmark times what a client sees.)
 */
final class McpSession implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PROTOCOL = "2025-06-18";

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final URI endpoint;
    private final String token;
    private final AtomicLong ids = new AtomicLong();
    private String session;

    private McpSession(int port, String token) {
        this.endpoint = URI.create("http://127.0.0.1:" + port + "/mcp");
        this.token = token;
    }

    /** initialize, then notifications/initialized. */
    static McpSession open(int port, String token) throws IOException, InterruptedException {
        McpSession s = new McpSession(port, token);
        Map<String, Object> params = Map.of(
                "protocolVersion",
                PROTOCOL,
                "capabilities",
                Map.of(),
                "clientInfo",
                Map.of("name", "roboco-sandbox-bench", "version", "1"));
        HttpResponse<String> init = s.post(
                Map.of("jsonrpc", "2.0", "id", s.ids.incrementAndGet(), "method", "initialize", "params", params));
        s.session = init.headers()
                .firstValue("Mcp-Session-Id")
                .orElseThrow(() -> new IllegalStateException(
                        "initialize answered no Mcp-Session-Id (HTTP " + init.statusCode() + ")"));
        s.result(init);
        HttpResponse<String> initialized = s.post(Map.of("jsonrpc", "2.0", "method", "notifications/initialized"));
        if (initialized.statusCode() != 202) {
            throw new IllegalStateException("notifications/initialized answered HTTP " + initialized.statusCode());
        }
        return s;
    }

    /** tools/call; the result, which must not be a tool error. */
    @SuppressWarnings("unchecked")
    Map<String, Object> callTool(String name, Map<String, Object> arguments) throws IOException, InterruptedException {
        Map<String, Object> result = result(post(Map.of(
                "jsonrpc",
                "2.0",
                "id",
                ids.incrementAndGet(),
                "method",
                "tools/call",
                "params",
                Map.of("name", name, "arguments", arguments))));
        if (Boolean.TRUE.equals(result.get("isError"))) {
            throw new IllegalStateException(name + " answered a tool error: "
                    + ((List<Map<String, Object>>) result.get("content")).get(0).get("text"));
        }
        return result;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (session != null) {
            http.send(
                    HttpRequest.newBuilder(endpoint)
                            .header("Authorization", "Bearer " + token)
                            .header("Mcp-Session-Id", session)
                            .DELETE()
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
        }
    }

    private HttpResponse<String> post(Map<String, Object> message) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
                .timeout(Duration.ofMinutes(5))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(message)));
        if (session != null) {
            b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", PROTOCOL);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The JSON-RPC result of a plain JSON answer or of the SSE event carrying it. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> result(HttpResponse<String> response) throws IOException {
        if (response.statusCode() != 200) {
            throw new IllegalStateException("/mcp answered HTTP " + response.statusCode() + ": " + response.body());
        }
        String body = response.body();
        if (response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
            StringBuilder data = new StringBuilder();
            for (String line : body.split("\n")) {
                if (line.startsWith("data:")) {
                    data.append(line.substring(5).strip());
                }
            }
            body = data.toString();
        }
        Map<String, Object> message = JSON.readValue(body, LinkedHashMap.class);
        if (message.containsKey("error")) {
            throw new IllegalStateException("/mcp answered a JSON-RPC error: " + message.get("error"));
        }
        return (Map<String, Object>) message.get("result");
    }
}
