package io.roboco.sandbox.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
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
}
