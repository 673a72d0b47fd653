package io.roboco.sandbox.web;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.roboco.sandbox.engine.Printable;
import io.roboco.sandbox.plugin.ClientTokenIssuer;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.Owner;
import io.roboco.sandbox.settings.ClientToken;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Clients: the operator-side owners (CI jobs, {@code job:<name>}) holding a client token, a form to mint one and a
 * revoke button per owner, through the same {@link ClientTokenIssuer} as {@code POST} / {@code DELETE
 * /api/clients/{owner}/token}. A minted token is on the answer to the mint (a page of its own, never cached) and
 * nowhere else: not in a redirect, a flash, a session, a log line or an audit record; reloading shows it no more.
 */
final class ClientPages {
    private final ClientTokenIssuer issuer;
    private final Templates templates;

    ClientPages(ClientTokenIssuer issuer, Templates templates) {
        this.issuer = issuer;
        this.templates = templates;
    }

    void register(Javalin app) {
        app.get("/clients", this::show, Access.ADMIN);
        app.post("/clients/token", this::mint, Access.ADMIN);
        app.post("/clients/token/revoke", this::revoke, Access.ADMIN);
    }

    private void show(Context ctx) {
        render(ctx, 200, page(ctx), null, "");
    }

    private void mint(Context ctx) {
        String typed = trimmed(ctx.formParam("owner"));
        Owner owner;
        String token;
        try {
            owner = Owner.parse(typed);
            token = issuer.mint(owner);
        } catch (BadRequest e) {
            render(
                    ctx,
                    400,
                    page(ctx).withMessage("No token minted: " + e.getMessage(), true),
                    null,
                    Printable.of(typed));
            return;
        }
        render(
                ctx,
                200,
                page(ctx).withMessage("Minted a client token for " + owner.value() + ". Copy it now.", false),
                new MintedToken(owner.value(), token),
                "");
    }

    private void revoke(Context ctx) {
        String typed = trimmed(ctx.formParam("owner"));
        Sessions.Session session = WebGate.session(ctx);
        try {
            Owner owner = Owner.parse(typed);
            boolean revoked = issuer.revoke(owner);
            session.flash(
                    revoked
                            ? "Revoked the client token of " + owner.value() + ": it stops working now."
                            : owner.value() + " has no client token; nothing revoked.",
                    !revoked);
        } catch (BadRequest e) {
            session.flash("Nothing revoked: " + e.getMessage(), true);
        }
        ctx.redirect("/clients", HttpStatus.SEE_OTHER);
    }

    private static Page page(Context ctx) {
        return Page.of("Client tokens", "clients", WebGate.session(ctx));
    }

    private void render(Context ctx, int status, Page page, MintedToken minted, String typedOwner) {
        List<ClientToken> issued = issuer.issued();
        Map<String, Object> params = new HashMap<>();
        params.put("page", page);
        params.put("issued", issued);
        params.put("minted", minted);
        params.put("owner", typedOwner);
        params.put("time", SandboxPages.TIME);
        templates.render(ctx, status, "clients.jte", params);
    }

    private static String trimmed(String s) {
        return s == null ? "" : s.trim();
    }
}
