package io.roboco.sandbox.mcp;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a tool answers: the JSON the HTTP API would answer (MCP {@code structuredContent}), a short text
 * for the model, and whether it is a tool error ({@code isError}: a refusal or an {@code invalid_state}
 * the agent can act on). {@code reason} and {@code services} go into the audit record, never a credential.
 *
 * @param coreAudited the core's front door wrote this call's one audit record (the verb, the create, the delete, the
 *                      extension), so the gate writes none of its own
 */
public record ToolResult(
        boolean error,
        Map<String, Object> structured,
        String text,
        String reason,
        List<String> services,
        boolean coreAudited) {
    public ToolResult {
        Objects.requireNonNull(structured, "structured");
        Objects.requireNonNull(text, "text");
        reason = reason == null ? "" : reason;
        services = services == null ? List.of() : List.copyOf(services);
    }

    /** A result the gate audits (nothing of the core's front door wrote a record for it). */
    public ToolResult(
            boolean error, Map<String, Object> structured, String text, String reason, List<String> services) {
        this(error, structured, text, reason, services, false);
    }

    public static ToolResult ok(Map<String, Object> structured, String text) {
        return new ToolResult(false, structured, text, "ok", List.of(), false);
    }

    /** A tool error: {@code reason} is what the agent reads and what the audit records. */
    public static ToolResult failed(Map<String, Object> structured, String reason) {
        return new ToolResult(true, structured, reason, reason, List.of(), false);
    }

    public ToolResult withServices(List<String> names) {
        return new ToolResult(error, structured, text, reason, names, coreAudited);
    }

    /** This result renders an outcome of the core's front door, which wrote its one audit record. */
    public ToolResult auditedByCore() {
        return new ToolResult(error, structured, text, reason, services, true);
    }
}
