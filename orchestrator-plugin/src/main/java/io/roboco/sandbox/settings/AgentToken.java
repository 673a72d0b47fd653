package io.roboco.sandbox.settings;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An agent's MCP token as the store keeps it: the SHA-256 digest (never the token), the engagement it was minted
 * for, when it stops working, and the MCP toolsets it was minted for. A token works only while {@code now < expires}
 * and its engagement is the agent's current one ({@link AgentTokenStore#engagement}).
 *
 * @param toolsets the names of the MCP toolsets the token opens (the server's {@code mcp.Toolset}); empty: the default
 *                 ones (a token from before toolsets)
 */
public record AgentToken(
        String agent, String digest, String engagement, Instant created, Instant expires, List<String> toolsets) {
    public AgentToken {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(digest, "digest");
        Objects.requireNonNull(engagement, "engagement");
        Objects.requireNonNull(created, "created");
        Objects.requireNonNull(expires, "expires");
        toolsets = toolsets == null ? List.of() : List.copyOf(toolsets);
    }

    /** A token of the default toolsets. */
    public AgentToken(String agent, String digest, String engagement, Instant created, Instant expires) {
        this(agent, digest, engagement, created, expires, List.of());
    }

    /** Whether it is current at {@code now} for an agent whose engagement is {@code current}. */
    public boolean validAt(Instant now, String current) {
        return now.isBefore(expires) && engagement.equals(current);
    }
}
