package io.roboco.sandbox.mcp;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Who is calling {@code /mcp}, as the bearer token says: an agent (its minted token) or the operator
 * (the admin token). Resolved once per HTTP request by {@link McpAuthFilter}; tools never see a token.
 */
public sealed interface Caller {
    /** The transport-context key the caller travels under, from the servlet request to the gate. */
    String CONTEXT_KEY = "roboco.caller";

    /** The name written into audit records: the agent's slug, or {@code @operator} (never a valid slug). */
    String auditName();

    /** An agent, and the toolsets its token opens. */
    record Agent(String slug, Set<Toolset> toolsets) implements Caller {
        public Agent {
            toolsets = toolsets.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(toolsets));
        }

        /** An agent with the default toolsets. */
        public Agent(String slug) {
            this(slug, Toolset.defaults());
        }

        @Override
        public String auditName() {
            return slug;
        }
    }

    record Operator() implements Caller {
        @Override
        public String auditName() {
            return "@operator";
        }
    }
}
