package io.roboco.sandbox.server.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.roboco.sandbox.request.Owner;
import java.util.LinkedHashMap;
import java.util.Map;

/** The operator mints and revokes client tokens (admin): {@code POST} / {@code DELETE /api/clients/{owner}/token}. */
public final class ClientRoutes {
    private final ClientTokens tokens;

    public ClientRoutes(ClientTokens tokens) {
        this.tokens = tokens;
    }

    void register(Javalin app) {
        app.post("/api/clients/{owner}/token", this::mint);
        app.delete("/api/clients/{owner}/token", this::revoke);
    }

    private void mint(Context ctx) {
        Owner owner = Owner.parse(ctx.pathParam("owner"));
        if (!ctx.body().isBlank() && !Json.body(ctx).isEmpty()) {
            throw ApiError.badRequest("the client token route takes no body");
        }
        String token = tokens.mint(owner);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("token", token);
        body.put("owner", owner.value());
        ctx.header("Cache-Control", "no-store");
        Json.write(ctx, 200, body);
    }

    private void revoke(Context ctx) {
        Owner owner = Owner.parse(ctx.pathParam("owner"));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", true);
        body.put("owner", owner.value());
        body.put("revoked", tokens.revoke(owner));
        Json.write(ctx, 200, body);
    }
}
