package io.roboco.sandbox.mcp;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a tool answers: the JSON the HTTP API would answer (MCP {@code structuredContent}), a short text
 * for the model, and whether it is a tool error ({@code isError}: a refusal or an {@code invalid_state}
 * the agent can act on). {@code reason} and {@code services} go into the audit record, never a credential.
 */
public record ToolResult(
        boolean error, Map<String, Object> structured, String text, String reason, List<String> services) {
    public ToolResult {
        Objects.requireNonNull(structured, "structured");
        Objects.requireNonNull(text, "text");
        reason = reason == null ? "" : reason;
        services = services == null ? List.of() : List.copyOf(services);
    }

    public static ToolResult ok(Map<String, Object> structured, String text) {
        return new ToolResult(false, structured, text, "ok", List.of());
    }

    /** A tool error: {@code reason} is what the agent reads and what the audit records. */
    public static ToolResult failed(Map<String, Object> structured, String reason) {
        return new ToolResult(true, structured, reason, reason, List.of());
    }

    public ToolResult withServices(List<String> names) {
        return new ToolResult(error, structured, text, reason, names);
    }
}
