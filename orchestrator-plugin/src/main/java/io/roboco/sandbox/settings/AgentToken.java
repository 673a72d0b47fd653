package io.roboco.sandbox.settings;

import java.time.Instant;
import java.util.Objects;

/**
 * An agent's MCP token as the store keeps it: the SHA-256 digest (never the token), the engagement it was minted
 * for and when it stops working. A token works only while {@code now < expires} and its engagement is the agent's
 * current one ({@link AgentTokenStore#engagement}).
 */
public record AgentToken(String agent, String digest, String engagement, Instant created, Instant expires) {
    public AgentToken {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(digest, "digest");
        Objects.requireNonNull(engagement, "engagement");
        Objects.requireNonNull(created, "created");
        Objects.requireNonNull(expires, "expires");
    }

    /** Whether it is current at {@code now} for an agent whose engagement is {@code current}. */
    public boolean validAt(Instant now, String current) {
        return now.isBefore(expires) && engagement.equals(current);
    }
}
