package io.roboco.sandbox.server.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.roboco.sandbox.data.DataOutcome;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.request.ProjectId;
import io.roboco.sandbox.request.TemplateName;
import io.roboco.sandbox.template.DirectoryTemplateStore;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Templates (admin): save one of our sandboxes' Postgres databases as a named template of its project, list them
 * (metadata, never content), delete one, copy one into another project (the way to share one: each project sees only
 * its own). A template seeds new sandboxes of its project as the project's {@code sandbox_seed} or per call.
 */
final class TemplateRoutes {
    private static final Set<String> SAVE_FIELDS = Set.of("name", "replace");
    private static final Set<String> COPY_FIELDS = Set.of("from", "to", "as", "replace");

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
        app.post("/api/templates/{name}/copy", this::copy);
    }

    private void save(Context ctx) throws InterruptedException {
        Map<String, Object> body = Json.body(ctx);
        for (String key : body.keySet()) {
            if (!SAVE_FIELDS.contains(key)) {
                throw new BadRequest(
                        "unknown field '" + Names.printable(key) + "'; saving a template takes: name, replace");
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
        List<Map<String, Object>> out = (project == null || project.isBlank()
                        ? plugin.templates().listAll()
                        : plugin.templates().list(ProjectId.parse(project).value()))
                .stream().map(DirectoryTemplateStore::toJson).toList();
        Json.write(ctx, 200, Map.of("templates", out));
    }

    /** {@code ?project=} names whose template; it may be left out while only one project has a template of that name. */
    private void delete(Context ctx) throws IOException {
        String name = name(ctx.pathParam("name"));
        String project = projectOf(name, ctx.queryParam("project"));
        if (!plugin.deleteTemplate(project, name, "operator")) {
            throw ApiError.notFound("project '" + project + "' has no template '" + name + "'; its templates: "
                    + plugin.templates().knownNames(project));
        }
        Json.write(ctx, 200, Map.of("ok", true, "project", project, "name", name, "deleted", true));
    }

    /**
     * Shares a template: {@code {"from": project, "to": project, "as"?: name, "replace"?: bool}} copies template
     * {@code name} of {@code from} into {@code to}, whose own it then is (under {@code to}'s caps).
     */
    private void copy(Context ctx) throws Exception {
        String name = name(ctx.pathParam("name"));
        Map<String, Object> body = Json.body(ctx);
        for (String key : body.keySet()) {
            if (!COPY_FIELDS.contains(key)) {
                throw new BadRequest("unknown field '" + Names.printable(key)
                        + "'; copying a template takes: from, to, as, replace");
            }
        }
        String from = body.get("from") == null
                ? projectOf(name, null)
                : ProjectId.parse(text(body, "from")).value();
        String to = ProjectId.parse(text(body, "to")).value();
        String as = body.get("as") == null ? name : name(body.get("as"));
        Object replace = body.getOrDefault("replace", false);
        if (!(replace instanceof Boolean)) {
            throw new BadRequest("'replace' must be true or false");
        }
        if (plugin.store().findProject(to).isEmpty()) {
            throw ApiError.notFound("no project '" + to + "'; create it with PUT /api/projects/" + to + " first");
        }
        TemplateInfo copied;
        try {
            copied = plugin.copyTemplate(from, name, to, as, (Boolean) replace, "operator");
        } catch (FileNotFoundException e) {
            throw ApiError.notFound(e.getMessage());
        } catch (TemplateStore.NameTaken | TemplateStore.OverCap e) {
            Json.write(ctx, 409, Json.error("conflict", e.getMessage()));
            return;
        }
        Json.write(ctx, 200, Map.of("ok", true, "template", DirectoryTemplateStore.toJson(copied)));
    }

    /** The project whose template {@code name} is meant: the one given, else the only one that has such a template. */
    private String projectOf(String name, String given) {
        if (given != null && !given.isBlank()) {
            return ProjectId.parse(given).value();
        }
        List<String> owners = plugin.templates().listAll().stream()
                .filter(t -> t.name().equals(name))
                .map(TemplateInfo::project)
                .toList();
        if (owners.size() == 1) {
            return owners.get(0);
        }
        if (owners.isEmpty()) {
            throw ApiError.notFound("no project has a template '" + name + "'");
        }
        throw new BadRequest("projects " + String.join(", ", owners) + " each have a template '" + name
                + "'; say whose with ?project=");
    }

    private static String text(Map<String, Object> body, String key) {
        if (!(body.get(key) instanceof String value)) {
            throw new BadRequest("'" + key + "' must be a project id");
        }
        return value;
    }

    private static String name(Object raw) {
        return TemplateName.parse("name", raw).value();
    }
}
