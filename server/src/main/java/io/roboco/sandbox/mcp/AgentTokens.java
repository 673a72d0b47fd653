package io.roboco.sandbox.mcp;

import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.settings.AgentTokenStore;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Agent-bound MCP tokens: 256 random bits, shown once when minted and kept only as a SHA-256 digest
 * (a token this long needs no salt or slow hash; the digest is what a stolen database would hold).
 * Minting again replaces the agent's token; revoking deletes it. Either way the old one stops at once.
 */
public final class AgentTokens {
    /** Every agent token starts so, which lets secret scanners find leaked ones. */
    public static final String PREFIX = "rbxa_";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final AgentTokenStore store;
    private final Clock clock;

    public AgentTokens(AgentTokenStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** A fresh token for {@code slug}; any earlier token of that agent stops working. */
    public String mint(String slug) {
        Names.requireAgentSlug(slug);
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        store.saveToken(slug, digest(token), clock.instant());
        return token;
    }

    /** The agent a presented token belongs to, if it is current. */
    public Optional<String> agentFor(String token) {
        if (token == null || !token.startsWith(PREFIX)) {
            return Optional.empty();
        }
        return store.agentForToken(digest(token));
    }

    /** True when the agent had a token. */
    public boolean revoke(String slug) {
        return store.deleteToken(slug);
    }

    static String digest(String token) {
        return HexFormat.of().formatHex(sha256(token));
    }

    static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }
}
