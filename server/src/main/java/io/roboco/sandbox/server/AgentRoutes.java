package io.roboco.sandbox.server;

import io.roboco.sandbox.request.Names;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.roboco.sandbox.verbs.AgentVerbs;
import io.roboco.sandbox.verbs.Envelope;
import io.roboco.sandbox.verbs.SpawnManifest;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The orchestrator's routes: spawn, verbs, container removal. Envelopes are answered with 200 and
 * never logged (an ok-envelope of request_sandbox carries credentials).
 */
final class AgentRoutes {
    private final AgentVerbs verbs;

    AgentRoutes(AgentVerbs verbs) {
        this.verbs = verbs;
    }

    void register(Javalin app) {
        app.post("/api/agents/{slug}/spawn", this::spawn);
        app.post("/api/agents/{slug}/verbs/{verb}", this::verb);
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

    private void containerRemoved(Context ctx) {
        String slug = ctx.pathParam("slug");
        int removed = verbs.containerRemoved(slug);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", true);
        body.put("agent", slug);
        body.put("removed", removed);
        Json.write(ctx, 200, body);
    }
}
