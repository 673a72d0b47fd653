package io.roboco.sandbox.mcp;

import io.roboco.sandbox.request.AgentSlug;
import io.roboco.sandbox.settings.AgentToken;
import io.roboco.sandbox.settings.AgentTokenStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;

/**
 * Agent-bound MCP tokens: 256 random bits, shown once when minted and kept only as a SHA-256 digest
 * (a token this long needs no salt or slow hash; the digest is what a stolen database would hold).
 * Minting again replaces the agent's token; revoking deletes it. Either way the old one stops at once.
 *
 * <p>A token carries the engagement it was minted for (the agent's current spawn; one is begun if the agent has
 * none) and an expiry ({@code ROBOCO_SANDBOX_MCP_TOKEN_TTL}). It works only before its expiry and while that
 * engagement is the agent's: re-spawning or deleting the agent ends it, whatever happened to the row.
 */
public final class AgentTokens {
    /** Every agent token starts so, which lets secret scanners find leaked ones. */
    public static final String PREFIX = "rbxa_";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final AgentTokenStore store;
    private final Duration ttl;
    private final Clock clock;

    /** @param ttl how long a minted token works ({@code ROBOCO_SANDBOX_MCP_TOKEN_TTL}) */
    public AgentTokens(AgentTokenStore store, Duration ttl, Clock clock) {
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("token TTL must be positive: " + ttl);
        }
        this.store = store;
        this.ttl = ttl;
        this.clock = clock;
    }

    /** A minted token, shown once, when it stops working, and the toolsets it opens. */
    public record Minted(String token, Instant expires, Set<Toolset> toolsets) {
        @Override
        public String toString() {
            return "Minted[token=<redacted>, expires=" + expires + ", toolsets=" + toolsets + "]";
        }
    }

    /** A fresh token of the default toolsets ({@link Toolset#defaults()}) for {@code slug}'s current engagement. */
    public Minted mint(String slug) {
        return mint(slug, Toolset.defaults());
    }

    /**
     * A fresh token for {@code slug}'s current engagement, opening {@code toolsets}; any earlier token of that agent
     * stops working.
     */
    public Minted mint(String slug, Set<Toolset> toolsets) {
        if (toolsets.isEmpty()) {
            throw new IllegalArgumentException("a token opens at least one toolset");
        }
        AgentSlug.parse(slug);
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        String engagement = store.engagement(slug).orElseGet(() -> {
            byte[] id = new byte[12];
            RANDOM.nextBytes(id);
            String begun = "eng_" + HexFormat.of().formatHex(id);
            store.beginEngagement(slug, begun, clock.instant());
            return begun;
        });
        Instant now = clock.instant();
        Instant expires = now.plus(ttl);
        store.saveToken(new AgentToken(slug, digest(token), engagement, now, expires, Toolset.ids(toolsets)));
        return new Minted(token, expires, toolsets);
    }

    /** The agent a presented token belongs to, if it is current: not expired, and minted for the agent's engagement. */
    public Optional<String> agentFor(String token) {
        return callerFor(token).map(Caller.Agent::slug);
    }

    /** The agent a presented current token belongs to, with the toolsets the token opens. */
    public Optional<Caller.Agent> callerFor(String token) {
        if (token == null || !token.startsWith(PREFIX)) {
            return Optional.empty();
        }
        Optional<AgentToken> found = store.findToken(digest(token));
        if (found.isEmpty()) {
            return Optional.empty();
        }
        AgentToken t = found.get();
        String current = store.engagement(t.agent()).orElse(null);
        return current != null && t.validAt(clock.instant(), current)
                ? Optional.of(new Caller.Agent(t.agent(), Toolset.stored(t.toolsets())))
                : Optional.empty();
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
