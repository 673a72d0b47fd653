package io.roboco.sandbox.plugin;

import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.Owner;
import io.roboco.sandbox.settings.ClientToken;
import java.util.List;

/**
 * Mints and revokes client tokens, one per operator-side owner (a CI job, {@code job:<name>}): what
 * {@code POST} / {@code DELETE /api/clients/{owner}/token}, the CLI's {@code client-token} and the dashboard's Clients
 * page all call, so the three behave alike. A token is returned once, when minted, and kept only as a digest; no
 * implementation logs it or writes it to an audit record.
 */
public interface ClientTokenIssuer {
    /**
     * A fresh token for {@code owner}; its earlier one stops working at once.
     *
     * @throws BadRequest when {@code owner} is not an operator-side owner (an agent gets an MCP token instead)
     */
    String mint(Owner owner);

    /**
     * Revokes {@code owner}'s token; true when it had one.
     *
     * @throws BadRequest when {@code owner} is not an operator-side owner
     */
    boolean revoke(Owner owner);

    /** Every owner holding a client token and since when, by owner (digests only: a token is never kept). */
    List<ClientToken> issued();
}
