package io.roboco.sandbox.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.roboco.sandbox.testkit.ApiClient;
import java.time.Duration;

/** The MCP SDK's own client on a test server's {@code /mcp} (Streamable HTTP) with a bearer token, initialized. */
final class McpClients {
    private McpClients() {}

    /** A client of the server on {@code port} as {@code token}'s holder; each request waits up to {@code timeout}. */
    static McpSyncClient connect(int port, String token, Duration timeout) {
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(
                        "http://127.0.0.1:" + port)
                .endpoint("/mcp")
                .jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper()))
                .httpRequestCustomizer((b, method, uri, body, context) -> b.header("Authorization", "Bearer " + token))
                .build();
        McpSyncClient client = McpClient.sync(transport).requestTimeout(timeout).build();
        client.initialize();
        return client;
    }

    /** A client as agent {@code slug}, with a token the orchestrator mints for it on {@code t} (its default toolsets). */
    static McpSyncClient asAgent(TestServer t, String slug) {
        ApiClient.Reply minted = t.api.orchestrator("POST", "/api/agents/" + slug + "/token", null);
        return connect(t.server.port(), (String) minted.json().get("token"), Duration.ofSeconds(30));
    }
}
