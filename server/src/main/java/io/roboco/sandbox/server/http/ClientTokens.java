package io.roboco.sandbox.server.http;

import io.roboco.sandbox.plugin.ClientTokenIssuer;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.Owner;
import io.roboco.sandbox.settings.ClientToken;
import io.roboco.sandbox.settings.ClientTokenStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * Client tokens: one per operator-side owner (a CI job, {@code job:<name>}), 256 random bits, shown once when minted
 * and kept only as a SHA-256 digest. A client token reaches only its owner's sandboxes ({@link ClientScope}). Minting
 * again replaces the owner's token; revoking deletes it; either way the old one stops at once. The API's routes
 * ({@link ClientRoutes}), the CLI (through them) and the dashboard's Clients page (as its {@link ClientTokenIssuer})
 * all mint and revoke here.
 */
public final class ClientTokens implements ClientTokenIssuer {
    /** Every client token starts so, which lets secret scanners find leaked ones. */
    static final String PREFIX = "rbxc_";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final ClientTokenStore store;
    private final Clock clock;

    public ClientTokens(ClientTokenStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** A fresh token for {@code owner}; its earlier one stops working. */
    @Override
    public String mint(Owner owner) {
        requireJob(owner);
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        store.saveClientToken(new ClientToken(owner.value(), digest(token), clock.instant()));
        return token;
    }

    /** The owner a presented token belongs to, if it is a current client token. */
    Optional<String> ownerFor(String token) {
        if (token == null || !token.startsWith(PREFIX)) {
            return Optional.empty();
        }
        return store.findClientToken(digest(token)).map(ClientToken::owner);
    }

    /** True when the owner had a token. */
    @Override
    public boolean revoke(Owner owner) {
        requireJob(owner);
        return store.deleteClientToken(owner.value());
    }

    @Override
    public List<ClientToken> issued() {
        return store.clientTokens().stream()
                .sorted(Comparator.comparing(ClientToken::owner))
                .toList();
    }

    private static void requireJob(Owner owner) {
        if (!owner.isJob()) {
            throw new BadRequest("a client token is for an operator-side owner, " + Owner.JOB.rule() + "; got '"
                    + owner.value() + "' (an agent gets an MCP token: POST /api/agents/{slug}/token)");
        }
    }

    static String digest(String token) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }
}
