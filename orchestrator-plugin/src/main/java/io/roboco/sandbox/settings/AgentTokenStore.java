package io.roboco.sandbox.settings;

import java.time.Instant;
import java.util.Optional;

/**
 * Agents' engagements and their MCP tokens, kept only as digests (the token itself is shown once, when it is
 * minted). An engagement is one spawn of an agent slug: spawning the slug again begins a new one and deleting the
 * agent ends it; either way every token minted for the old one stops. One token per agent: saving again replaces
 * the old one, which stops working at once.
 */
public interface AgentTokenStore {
    /** Begins {@code engagement} for {@code agent}, ending its previous one and deleting every token it had. */
    void beginEngagement(String agent, String engagement, Instant started);

    /** The agent's current engagement, if it has one. */
    Optional<String> engagement(String agent);

    /** Ends the agent's engagement and deletes its tokens; true when it had either. */
    boolean endEngagement(String agent);

    /** Keeps {@code token}, replacing any token its agent had. */
    void saveToken(AgentToken token);

    /** The token with this digest (lower-case hex SHA-256), current or not: the caller checks expiry and engagement. */
    Optional<AgentToken> findToken(String digest);

    /** Revokes the agent's token; true when it had one. */
    boolean deleteToken(String agent);
}
