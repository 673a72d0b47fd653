package io.roboco.sandbox.mcp;

import java.util.Map;
import java.util.Objects;

/**
 * One tool as the gate knows it: its name and description, the JSON Schema of its arguments (the gate
 * validates every call against it), its hints, who may see and call it, and the handler behind it.
 *
 * @param readOnly    {@code readOnlyHint}: the tool changes nothing
 * @param destructive {@code destructiveHint}: the tool removes something (release, delete)
 * @param idempotent  {@code idempotentHint}: calling again with the same arguments has no further effect
 */
public record ToolSpec(String name, String title, String description, Map<String, Object> inputSchema,
                       boolean readOnly, boolean destructive, boolean idempotent, Audience audience, ToolHandler handler) {
    /** Who sees a tool in {@code tools/list} and may call it. */
    public enum Audience {
        AGENT, OPERATOR, BOTH;

        boolean admits(Caller caller) {
            return this == BOTH || (caller instanceof Caller.Agent ? this == AGENT : this == OPERATOR);
        }
    }

    public ToolSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        inputSchema = Map.copyOf(inputSchema);
        Objects.requireNonNull(audience, "audience");
        Objects.requireNonNull(handler, "handler");
        if (readOnly && destructive) {
            throw new IllegalArgumentException("tool " + name + " cannot be both read-only and destructive");
        }
    }
}
