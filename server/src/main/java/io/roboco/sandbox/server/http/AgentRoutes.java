package io.roboco.sandbox.server.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.roboco.sandbox.mcp.AgentTokens;
import io.roboco.sandbox.mcp.Toolset;
import io.roboco.sandbox.request.AgentSlug;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.verbs.AgentVerbs;
import io.roboco.sandbox.verbs.Envelope;
import io.roboco.sandbox.verbs.SpawnManifest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;

/**
 * The orchestrator's routes: spawn, verbs, MCP tokens, container removal (which also revokes the agent's token). Envelopes are answered with 200 and
 * never logged (an ok-envelope of request_sandbox carries credentials).
 */
public final class AgentRoutes {
    private final AgentVerbs verbs;
    private final AgentTokens tokens;
    private final IntFunction<String> mcpUrl;
    private final IntSupplier port;

    /**
     * {@code mcpUrl} gives the /mcp address for a port; {@code port} the one the server listens on (known once it
     * started, before any route is served: minted configurations name it).
     */
    public AgentRoutes(AgentVerbs verbs, AgentTokens tokens, IntFunction<String> mcpUrl, IntSupplier port) {
        this.verbs = verbs;
        this.tokens = tokens;
        this.mcpUrl = mcpUrl;
        this.port = port;
    }

    void register(Javalin app) {
        app.post("/api/agents/{slug}/spawn", this::spawn);
        app.post("/api/agents/{slug}/verbs/{verb}", this::verb);
        app.post("/api/agents/{slug}/token", this::mintToken);
        app.delete("/api/agents/{slug}", this::containerRemoved);
    }

    private void spawn(Context ctx) {
        Map<String, Object> body = Json.body(ctx);
        for (String key : body.keySet()) {
            if (!Set.of("role", "project").contains(key)) {
                throw ApiError.badRequest("unknown field '" + Names.printable(key) + "'; spawn takes: role, project");
            }
        }
        Object role = body.get("role");
        Object project = body.get("project");
        if (!(role instanceof String)) {
            throw ApiError.badRequest("'role' is required and must be a string");
        }
        if (project != null && !(project instanceof String)) {
            throw ApiError.badRequest("'project' must be a string or absent");
        }
        SpawnManifest manifest = verbs.spawn(ctx.pathParam("slug"), (String) role, (String) project);
        Json.write(ctx, 200, manifest.asMap());
    }

    private void verb(Context ctx) throws InterruptedException {
        Map<String, Object> args = Json.body(ctx);
        Envelope envelope = verbs.call(ctx.pathParam("slug"), ctx.pathParam("verb"), args);
        Json.write(ctx, 200, envelope.asMap());
    }

    /**
     * A fresh MCP token bound to this agent (replacing its earlier one) and the client configuration that
     * uses it. Shown once; only its digest is kept. An optional body names the MCP toolsets it opens
     * ({@code {"toolsets":["core","inspect"]}}); without one, the default ones ({@link Toolset#defaults()}).
     */
    private void mintToken(Context ctx) {
        String slug = AgentSlug.parse(ctx.pathParam("slug")).value();
        Map<String, Object> args = ctx.body().isBlank() ? Map.of() : Json.body(ctx);
        for (String key : args.keySet()) {
            if (!key.equals("toolsets")) {
                throw ApiError.badRequest("the token route takes only 'toolsets' (e.g. {\"toolsets\":[\"core\","
                        + "\"inspect\"]}); unknown field '" + Names.printable(key) + "'");
            }
        }
        Set<Toolset> toolsets = Toolset.parseAll(args.get("toolsets"));
        AgentTokens.Minted minted = tokens.mint(slug, toolsets);
        String url = mcpUrl.apply(port.getAsInt());
        Map<String, Object> mcp = new LinkedHashMap<>();
        mcp.put("url", url);
        mcp.put("headers", Map.of("Authorization", "Bearer " + minted.token()));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("token", minted.token());
        body.put("expires", minted.expires().toString());
        body.put("toolsets", Toolset.ids(minted.toolsets()));
        body.put("mcp", mcp);
        ctx.header("Cache-Control", "no-store");
        Json.write(ctx, 200, body);
    }

    private void containerRemoved(Context ctx) {
        String slug = ctx.pathParam("slug");
        boolean revoked = tokens.revoke(slug);
        int removed = verbs.containerRemoved(slug);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", true);
        body.put("agent", slug);
        body.put("removed", removed);
        body.put("token_revoked", revoked);
        Json.write(ctx, 200, body);
    }
}
