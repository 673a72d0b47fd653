package io.roboco.sandbox.server.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Bearer-token checks: agent routes ({@code /api/agents/...}) need the orchestrator token, every
 * other {@code /api/...} route the admin token, or, on the few routes {@link ClientScope} admits, an owner's client
 * token. Missing → 401, wrong → 403. Tokens are compared
 * as SHA-256 digests with {@link MessageDigest#isEqual}, so neither content nor length leaks by timing.
 */
public final class TokenAuth {
    private final byte[] apiDigest;
    private final byte[] adminDigest;
    private final ClientTokens clients;

    public TokenAuth(String apiToken, String adminToken, ClientTokens clients) {
        this.apiDigest = digest(apiToken);
        this.adminDigest = digest(adminToken);
        this.clients = clients;
    }

    /**
     * Throws an {@link ApiError} unless {@code authorization} carries the token {@code method path} needs; answers the
     * owner when it is a client token (null for the orchestrator and admin tokens).
     */
    String check(String method, String path, String authorization) {
        boolean agentRoute = path.startsWith("/api/agents/");
        String given = bearer(authorization);
        if (given == null) {
            throw new ApiError(
                    401,
                    "unauthorized",
                    "missing bearer token; send 'Authorization: Bearer <"
                            + (agentRoute ? "ROBOCO_SANDBOX_API_TOKEN" : "ROBOCO_SANDBOX_ADMIN_TOKEN") + ">'");
        }
        if (MessageDigest.isEqual(digest(given), agentRoute ? apiDigest : adminDigest)) {
            return null;
        }
        String owner = clients.ownerFor(given).orElse(null);
        if (owner != null && ClientScope.admits(method, path)) {
            return owner;
        }
        throw new ApiError(
                403,
                "forbidden",
                owner != null
                        ? "a client token reaches only its owner's sandboxes (create, list, show, extend, delete)"
                        : "this token does not grant " + (agentRoute ? "agent" : "admin") + " routes");
    }

    private static String bearer(String header) {
        if (header == null || header.length() < 8 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String token = header.substring(7).trim();
        return token.isEmpty() ? null : token;
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }
}
