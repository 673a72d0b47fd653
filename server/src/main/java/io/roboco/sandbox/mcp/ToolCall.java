package io.roboco.sandbox.mcp;

import io.roboco.sandbox.inspect.InspectionPolicy;
import java.util.Map;

/**
 * A call the gate has admitted: who asks, the validated arguments, what it acts on, and the policy in force.
 *
 * @param sandbox the sandbox the gate resolved among the caller's own (for {@link ToolSpec.Scope#OWN_SANDBOX} tools and
 *                any call naming a {@code sandbox}); else null
 * @param policy  the inspection policy in force for the caller's project, its row cap the gate's
 */
public record ToolCall(
        Caller caller, String tool, Map<String, Object> arguments, ScopedSandbox sandbox, InspectionPolicy policy) {
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
