package io.roboco.sandbox.server;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.roboco.sandbox.data.DataOutcome;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.template.DirectoryTemplateStore;
import io.roboco.sandbox.template.TemplateInfo;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Templates (admin): save one of our sandboxes' Postgres databases as a named template, list them (metadata, never
 * content), delete one. A template seeds new sandboxes as a project's {@code sandbox_seed} or per call.
 */
final class TemplateRoutes {
    private static final Set<String> SAVE_FIELDS = Set.of("name", "replace");

    private final Sandboxes sandboxes;
    private final SandboxPlugin plugin;

    TemplateRoutes(Sandboxes sandboxes, SandboxPlugin plugin) {
        this.sandboxes = sandboxes;
        this.plugin = plugin;
    }

    void register(Javalin app) {
        app.post("/api/sandboxes/{id}/templates", this::save);
        app.get("/api/templates", this::list);
        app.delete("/api/templates/{name}", this::delete);
    }

    private void save(Context ctx) throws InterruptedException {
        Map<String, Object> body = Json.body(ctx);
        for (String key : body.keySet()) {
            if (!SAVE_FIELDS.contains(key)) {
                throw new BadRequest("unknown field '" + Names.printable(key) + "'; saving a template takes: name, replace");
            }
        }
        String name = name(body.get("name"));
        Object replace = body.getOrDefault("replace", false);
        if (!(replace instanceof Boolean)) {
            throw new BadRequest("'replace' must be true or false");
        }
        String id = ctx.pathParam("id");
        DataOutcome outcome;
        try {
            outcome = sandboxes.saveTemplate(id, name, (Boolean) replace);
        } catch (Sandboxes.NotFound e) {
            throw new Sandboxes.NotFound("no sandbox '" + Names.printable(id) + "'");
        }
        if (outcome instanceof DataOutcome.Done done) {
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("ok", true);
            answer.put("template", done.evidence());
            Json.write(ctx, 200, answer);
        } else if (outcome instanceof DataOutcome.Refused refused) {
            Json.write(ctx, 409, Json.error("conflict", refused.reason()));
        } else {
            DataOutcome.Failed failed = (DataOutcome.Failed) outcome;
            Map<String, Object> answer = new LinkedHashMap<>(Json.error("invalid_state", failed.reason()));
            answer.put("retryable", failed.retryable());
            Json.write(ctx, 503, answer);
        }
    }

    private void list(Context ctx) {
        String project = ctx.queryParam("project");
        List<Map<String, Object>> out = plugin.templates().list().stream()
                .filter(t -> project == null || project.isBlank() || t.project().equals(project))
                .map(DirectoryTemplateStore::toJson).toList();
        Json.write(ctx, 200, Map.of("templates", out));
    }

    private void delete(Context ctx) throws java.io.IOException {
        String name = name(ctx.pathParam("name"));
        if (!plugin.deleteTemplate(name, "operator")) {
            throw ApiError.notFound("no template '" + name + "'; known: " + plugin.templates().knownNames());
        }
        Json.write(ctx, 200, Map.of("ok", true, "name", name, "deleted", true));
    }

    private static String name(Object raw) {
        if (!(raw instanceof String name) || !TemplateInfo.validName(name)) {
            throw new BadRequest("'name' must be a template name (" + TemplateInfo.NAME_RULE + ")"
                    + (raw instanceof String s ? "; got '" + Names.printable(s) + "'" : ""));
        }
        return name;
    }
}
