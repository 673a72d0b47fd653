package io.roboco.sandbox.mcp;

import io.roboco.sandbox.guard.AgentOperation;
import java.util.Map;
import java.util.Objects;

/**
 * One tool as the gate knows it: its name and description, the JSON Schema of its arguments (the gate
 * validates every call against it), its hints, who may see and call it, and the handler behind it.
 *
 * @param readOnly    {@code readOnlyHint}: the tool changes nothing
 * @param destructive {@code destructiveHint}: the tool removes something (release, delete)
 * @param idempotent  {@code idempotentHint}: calling again with the same arguments has no further effect
 * @param scope       what the call acts on; the gate resolves it (and refuses) before the handler runs
 * @param operation   what an agent's call asks of the guard chain (role, flag, task, opt-in), which the gate asks before
 *                    anything else; required for every tool an agent can call (an operator-only tool has none)
 */
public record ToolSpec(
        String name,
        String title,
        String description,
        Map<String, Object> inputSchema,
        boolean readOnly,
        boolean destructive,
        boolean idempotent,
        Audience audience,
        Scope scope,
        ToolHandler handler,
        AgentOperation operation) {
    /** Who sees a tool in {@code tools/list} and may call it. */
    public enum Audience {
        AGENT,
        OPERATOR,
        BOTH;

        boolean admits(Caller caller) {
            return this == BOTH || (caller instanceof Caller.Agent ? this == AGENT : this == OPERATOR);
        }
    }

    /** What a call acts on, resolved by the gate before the handler runs. */
    public enum Scope {
        /** The caller itself (its verbs, its listing). */
        CALLER,
        /** One live sandbox of the caller's own: the gate finds it, or answers a tool error without calling the handler. */
        OWN_SANDBOX
    }

    public ToolSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        inputSchema = Map.copyOf(inputSchema);
        Objects.requireNonNull(audience, "audience");
        Objects.requireNonNull(scope, "scope");
        if (scope == Scope.OWN_SANDBOX && audience != Audience.AGENT) {
            throw new IllegalArgumentException(
                    "tool " + name + " acts on the caller's own sandbox, so only agents may call it");
        }
        Objects.requireNonNull(handler, "handler");
        if (readOnly && destructive) {
            throw new IllegalArgumentException("tool " + name + " cannot be both read-only and destructive");
        }
        if (audience != Audience.OPERATOR && operation == null) {
            throw new IllegalArgumentException(
                    "tool " + name + " can be called by an agent, so it names its guard-chain operation");
        }
    }
}
