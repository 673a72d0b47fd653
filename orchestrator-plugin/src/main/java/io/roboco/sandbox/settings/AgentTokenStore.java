package io.roboco.sandbox.settings;

import java.time.Instant;
import java.util.Optional;

/**
 * Agents' MCP tokens, kept only as digests (the token itself is shown once, when it is minted).
 * One token per agent: saving again replaces the old one, which stops working at once.
 */
public interface AgentTokenStore {
    /** Binds {@code digest} (lower-case hex SHA-256 of the token) to {@code agent}, replacing any token it had. */
    void saveToken(String agent, String digest, Instant created);

    /** The agent whose current token has this digest. */
    Optional<String> agentForToken(String digest);

    /** Revokes the agent's token; true when it had one. */
    boolean deleteToken(String agent);
}
