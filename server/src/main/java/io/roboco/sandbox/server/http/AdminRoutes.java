package io.roboco.sandbox.server.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.settings.AuditPage;
import io.roboco.sandbox.settings.AuditQuery;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.FlagStatus;
import io.roboco.sandbox.settings.FlagStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.ProjectForm;
import io.roboco.sandbox.settings.SettingsStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Admin routes: projects' Sandbox settings, the feature flag, live sandboxes and the audit trail. Never a credential. */
public final class AdminRoutes {
    static final int DEFAULT_AUDIT_LIMIT = 100;
    static final int MAX_AUDIT_LIMIT = 1000;

    private final SandboxPlugin plugin;
    private final SettingsStore store;
    private final Boolean flagEnvOverride;
    private final Clock clock;

    public AdminRoutes(SandboxPlugin plugin, Boolean flagEnvOverride, Clock clock) {
        this.plugin = plugin;
        this.store = plugin.store();
        this.flagEnvOverride = flagEnvOverride;
        this.clock = clock;
    }

    void register(Javalin app) {
        app.get(
                "/api/projects",
                ctx -> Json.write(
                        ctx,
                        200,
                        Map.of(
                                "projects",
                                store.allProjects().stream()
                                        .map(ProjectForm::toJson)
                                        .toList())));
        app.get(
                "/api/projects/{id}",
                ctx -> Json.write(
                        ctx,
                        200,
                        ProjectForm.toJson(store.findProject(ctx.pathParam("id"))
                                .orElseThrow(() -> ApiError.notFound(
                                        "no project '" + Names.printable(ctx.pathParam("id")) + "'")))));
        app.put("/api/projects/{id}", this::putProject);
        app.get("/api/flags", ctx -> Json.write(ctx, 200, Map.of(FlagStore.SANDBOX_DB_ENABLED, flagView())));
        app.put("/api/flags/{name}", this::putFlag);
        app.get("/api/audit", this::audit);
    }

    private void putProject(Context ctx) {
        Project project = ProjectForm.parse(
                ctx.pathParam("id"),
                Json.body(ctx),
                plugin.registry(),
                plugin.manager().provisioner().settings(),
                plugin.templates());
        store.saveProject(project);
        plugin.primeSeededPools(project);
        Json.write(ctx, 200, ProjectForm.toJson(project));
    }

    private void putFlag(Context ctx) {
        String name = ctx.pathParam("name");
        if (!FlagStore.SANDBOX_DB_ENABLED.equals(name)) {
            throw ApiError.notFound("no flag '" + Names.printable(name) + "'; known: " + FlagStore.SANDBOX_DB_ENABLED);
        }
        Map<String, Object> body = Json.body(ctx);
        Object enabled = body.get("enabled");
        if (!(enabled instanceof Boolean) || body.size() != 1) {
            throw ApiError.badRequest("body must be {\"enabled\": true} or {\"enabled\": false}");
        }
        store.storeFlag(name, (Boolean) enabled);
        Json.write(ctx, 200, flagView());
    }

    /** Stored vs effective, and whether a restart is pending; the rule lives in {@link FlagStatus}. */
    private Map<String, Object> flagView() {
        return FlagStatus.read(store, plugin.flagEffective(), flagEnvOverride).toJson();
    }

    private void audit(Context ctx) {
        int limit = DEFAULT_AUDIT_LIMIT;
        String rawLimit = ctx.queryParam("limit");
        if (rawLimit != null && !rawLimit.isBlank()) {
            try {
                limit = Integer.parseInt(rawLimit);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_AUDIT_LIMIT) {
                throw ApiError.badRequest("limit must be a whole number from 1 to " + MAX_AUDIT_LIMIT);
            }
        }
        AuditPage page = store.page(
                new AuditQuery(ctx.queryParam("agent"), ctx.queryParam("decision"), limit, ctx.queryParam("cursor")));
        List<Map<String, Object>> records = new ArrayList<>();
        for (AuditRecord r : page.records()) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("time", r.time().toString());
            json.put("agent", r.agent());
            json.put("project", r.project());
            json.put("verb", r.verb());
            json.put("decision", r.decision());
            json.put("reason", r.reason());
            json.put("services", r.services());
            json.put("duration_ms", r.durationMillis());
            records.add(json);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("records", records);
        body.put("next_cursor", page.nextCursor());
        Json.write(ctx, 200, body);
    }
}
