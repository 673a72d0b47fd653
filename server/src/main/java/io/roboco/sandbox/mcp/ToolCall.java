package io.roboco.sandbox.mcp;

import java.util.Map;

/**
 * A call the gate has admitted: who asks, the validated arguments, and the policy in force.
 *
 * @param rowCap the most rows (or entries) the answer may carry; more are cut and flagged {@code truncated}
 */
public record ToolCall(Caller caller, String tool, Map<String, Object> arguments, int rowCap) {
    public ToolCall {
        arguments = arguments == null ? Map.of() : arguments;
    }

    /** The agent's slug; the gate admits agent-only tools for agents only, so this is safe there. */
    public String agent() {
        if (caller instanceof Caller.Agent agent) {
            return agent.slug();
        }
        throw new IllegalStateException("tool " + tool + " needs an agent caller");
    }

    public String string(String key) {
        Object v = arguments.get(key);
        return v instanceof String s ? s : null;
    }
}
