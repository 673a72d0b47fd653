package io.roboco.sandbox.mcp;

/**
 * Who is calling {@code /mcp}, as the bearer token says: an agent (its minted token) or the operator
 * (the admin token). Resolved once per HTTP request by {@link McpAuthFilter}; tools never see a token.
 */
public sealed interface Caller {
    /** The transport-context key the caller travels under, from the servlet request to the gate. */
    String CONTEXT_KEY = "roboco.caller";

    /** The name written into audit records: the agent's slug, or {@code @operator} (never a valid slug). */
    String auditName();

    record Agent(String slug) implements Caller {
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
