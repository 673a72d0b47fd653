package io.roboco.sandbox.it;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * /mcp spoken on the wire with plain HTTP (no SDK in the test JVM, so nothing the test logs is the client's):
 * initialize, then JSON-RPC POSTs whose raw answer bodies a test can search.
 */
public final class McpWire {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI endpoint;
    private final String token;
    private final AtomicLong ids = new AtomicLong();
    private String session;

    public McpWire(int port, String token) {
        this.endpoint = URI.create("http://127.0.0.1:" + port + "/mcp");
        this.token = token;
    }

    /** initialize + notifications/initialized; the initialize answer's body. */
    public String initialize() throws Exception {
        HttpResponse<String> init = post(Map.of(
                "jsonrpc",
                "2.0",
                "id",
                ids.incrementAndGet(),
                "method",
                "initialize",
                "params",
                Map.of(
                        "protocolVersion",
                        "2025-06-18",
                        "capabilities",
                        Map.of(),
                        "clientInfo",
                        Map.of("name", "wire", "version", "1"))));
        session = init.headers()
                .firstValue("Mcp-Session-Id")
                .orElseThrow(() -> new AssertionError("no session: HTTP " + init.statusCode()));
        post(Map.of("jsonrpc", "2.0", "method", "notifications/initialized"));
        return init.body();
    }

    /** tools/call; the raw answer body (an SSE event or JSON). */
    public String call(String tool, Map<String, Object> arguments) throws Exception {
        return post(Map.of(
                        "jsonrpc",
                        "2.0",
                        "id",
                        ids.incrementAndGet(),
                        "method",
                        "tools/call",
                        "params",
                        Map.of("name", tool, "arguments", arguments)))
                .body();
    }

    private HttpResponse<String> post(Map<String, Object> message) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
                .timeout(Duration.ofMinutes(3))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(message)));
        if (session != null) {
            b.header("Mcp-Session-Id", session);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
