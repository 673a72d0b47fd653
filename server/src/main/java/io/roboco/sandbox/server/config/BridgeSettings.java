package io.roboco.sandbox.server.config;

import java.net.URI;
import java.util.Map;

/**
 * Settings of {@code roboco-sandbox mcp}, the stdio bridge: {@code ROBOCO_SANDBOX_URL} (the running
 * server, default {@value #DEFAULT_URL}) and {@code ROBOCO_SANDBOX_MCP_TOKEN} (the agent's token; required).
 * The {@code ROBOCO_SANDBOX_MCP_*} names are checked as the server checks them, so a misspelt one is an
 * error rather than a bridge that silently runs without it.
 */
public record BridgeSettings(URI server, String token) {
    static final String URL = "ROBOCO_SANDBOX_URL";
    static final String DEFAULT_URL = "http://127.0.0.1:7070";

    @Override
    public String toString() {
        return "BridgeSettings[server=" + server + ", token=<set>]";
    }

    public static BridgeSettings fromEnv(Map<String, String> env) {
        McpSettings.fromEnv(env);
        String raw = env.get(URL);
        String url = raw == null || raw.isBlank() ? DEFAULT_URL : raw.trim();
        McpSettings.requireHttpUrl(URL, url);
        URI uri = URI.create(url);
        if (uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/")) {
            throw new ConfigException(URL + "='" + url + "' must be the server's address without a path, e.g. "
                    + DEFAULT_URL + " (the bridge talks to its /mcp)");
        }
        String token = env.get(McpSettings.TOKEN);
        if (token == null || token.isBlank()) {
            throw new ConfigException(McpSettings.TOKEN + " is not set; the orchestrator mints the agent's token with"
                    + " POST /api/agents/{slug}/token and puts it into the agent's MCP configuration");
        }
        return new BridgeSettings(uri, token.trim());
    }
}
