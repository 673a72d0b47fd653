package io.roboco.sandbox.settings;

import java.util.List;
import java.util.Optional;

/**
 * Client tokens, one per operator-side owner, kept only as digests (the token is shown once, when it is minted).
 * Saving again replaces the owner's token, which stops working at once.
 */
public interface ClientTokenStore {
    /** Keeps {@code token}, replacing any token its owner had. */
    void saveClientToken(ClientToken token);

    /** The client token with this digest (lower-case hex SHA-256). */
    Optional<ClientToken> findClientToken(String digest);

    /** Every owner's client token (digests only), by owner. */
    List<ClientToken> clientTokens();

    /** Revokes the owner's client token; true when it had one. */
    boolean deleteClientToken(String owner);
}
