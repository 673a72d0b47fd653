package io.roboco.sandbox.web;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.roboco.sandbox.plugin.OperatorConsole;
import io.roboco.sandbox.request.DurationText;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.ProjectForm;
import io.roboco.sandbox.settings.SeedForm;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The projects list (with a form to add one) and each project's settings page with the Sandbox
 * card. Both forms go through {@link ProjectForm#check}, the validation {@code PUT /api/projects}
 * uses, so a refused combination is refused the same way and nothing is saved.
 */
final class ProjectPages {
    static final String FEATURE_PREFIX = "feature.";
    static final String VERSION_PREFIX = "version.";
    static final String LIMIT_PREFIX = "limit.";

    private final OperatorConsole console;
    private final Templates templates;

    ProjectPages(OperatorConsole console, Templates templates) {
        this.console = console;
        this.templates = templates;
    }

    void register(Javalin app) {
        app.get("/projects", ctx -> list(ctx, 200, null, "", ""), Access.ADMIN);
        app.post("/projects", this::add, Access.ADMIN);
        app.get("/projects/{id}", this::settings, Access.ADMIN);
        app.post("/projects/{id}", this::save, Access.ADMIN);
    }

    private void list(Context ctx, int status, String error, String id, String name) {
        Page page = Page.of("Projects", "projects", WebGate.session(ctx));
        templates.render(
                ctx,
                status,
                "projects.jte",
                Map.of(
                        "page",
                        error == null ? page : page.withMessage(error, true),
                        "projects",
                        console.projects(),
                        "newId",
                        id,
                        "newName",
                        name));
    }

    private void add(Context ctx) {
        String id = trimmed(ctx.formParam("id"));
        String name = trimmed(ctx.formParam("name"));
        if (console.project(id).isPresent()) {
            list(
                    ctx,
                    409,
                    "Project '" + id + "' already exists; open it from the list to change its settings.",
                    id,
                    name);
            return;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", name.isEmpty() ? null : name);
        ProjectForm.Check check = console.checkProject(id, body);
        if (check instanceof ProjectForm.Check.Invalid invalid) {
            list(ctx, 400, "Not added: " + invalid.message(), id, name);
            return;
        }
        console.saveProject(((ProjectForm.Check.Valid) check).project());
        WebGate.session(ctx)
                .flash(
                        "Project '" + id + "' added. It is not opted in until you choose sandbox services below.",
                        false);
        ctx.redirect("/projects/" + URLEncoder.encode(id, StandardCharsets.UTF_8), HttpStatus.SEE_OTHER);
    }

    private void settings(Context ctx) {
        Optional<Project> project = console.project(ctx.pathParam("id"));
        if (project.isEmpty()) {
            notFound(ctx);
            return;
        }
        Project p = project.get();
        show(
                ctx,
                200,
                Page.of(p.name(), "projects", WebGate.session(ctx)),
                p,
                SandboxCard.of(
                                console.registry(),
                                p.services(),
                                p.extensions(),
                                p.versions(),
                                seedLines(p),
                                limitsShown(p),
                                hints())
                        .withLifecycle(lifecycle(
                                p.ttlDefault() == null ? "" : DurationText.format(p.ttlDefault()),
                                p.ttlMax() == null ? "" : DurationText.format(p.ttlMax()),
                                p.maxLive() == null ? "" : p.maxLive().toString())));
    }

    private void save(Context ctx) {
        Optional<Project> existing = console.project(ctx.pathParam("id"));
        if (existing.isEmpty()) {
            notFound(ctx);
            return;
        }
        Project current = existing.get();
        List<String> services = ctx.formParams("service");
        Map<String, List<String>> features = new TreeMap<>();
        for (Map.Entry<String, List<String>> param : ctx.formParamMap().entrySet()) {
            if (param.getKey().startsWith(FEATURE_PREFIX) && !param.getValue().isEmpty()) {
                features.put(param.getKey().substring(FEATURE_PREFIX.length()), new ArrayList<>(param.getValue()));
            }
        }
        Map<String, String> versions = new TreeMap<>();
        for (Map.Entry<String, List<String>> param : ctx.formParamMap().entrySet()) {
            if (param.getKey().startsWith(VERSION_PREFIX)
                    && !param.getValue().isEmpty()
                    && !param.getValue().get(0).isBlank()
                    && services.contains(param.getKey().substring(VERSION_PREFIX.length()))) {
                versions.put(
                        param.getKey().substring(VERSION_PREFIX.length()),
                        param.getValue().get(0).trim());
            }
        }
        // limit.<field>.<engine> = value; an empty field is the default.
        Map<String, Map<String, String>> limits = new TreeMap<>();
        for (Map.Entry<String, List<String>> param : ctx.formParamMap().entrySet()) {
            String key = param.getKey();
            if (!key.startsWith(LIMIT_PREFIX)
                    || param.getValue().isEmpty()
                    || param.getValue().get(0).isBlank()) {
                continue;
            }
            String rest = key.substring(LIMIT_PREFIX.length());
            int dot = rest.indexOf('.');
            if (dot > 0 && services.contains(rest.substring(dot + 1))) {
                limits.computeIfAbsent(rest.substring(dot + 1), k -> new TreeMap<>())
                        .put(rest.substring(0, dot), param.getValue().get(0).trim());
            }
        }
        String name = trimmed(ctx.formParam("name"));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", name.isEmpty() ? current.name() : name);
        body.put("sandbox_services", services);
        body.put("sandbox_extensions", features);
        body.put("sandbox_versions", versions);
        String ttlDefault = trimmed(ctx.formParam("sandbox_ttl_default"));
        String ttlMax = trimmed(ctx.formParam("sandbox_ttl_max"));
        String maxLive = trimmed(ctx.formParam("sandbox_max_live"));
        body.put("sandbox_ttl_default", ttlDefault.isEmpty() ? null : ttlDefault);
        body.put("sandbox_ttl_max", ttlMax.isEmpty() ? null : ttlMax);
        body.put("sandbox_max_live", maxLive.isEmpty() ? null : maxLive);
        // The seed is set through the API (it may hold a script); the card keeps it for the services still checked.
        Map<String, Object> seeds = new TreeMap<>(SeedForm.toJson(current.seeds()));
        seeds.keySet().retainAll(services);
        body.put("sandbox_seed", seeds);
        Map<String, Object> limitsBody = new TreeMap<>(limits);
        body.put("sandbox_limits", limitsBody);
        ProjectForm.Check check = console.checkProject(current.id(), body);
        if (check instanceof ProjectForm.Check.Invalid invalid) {
            Page page = Page.of(current.name(), "projects", WebGate.session(ctx))
                    .withMessage("Not saved: " + invalid.message(), true);
            // Show what was submitted, so the operator can fix it; the store still holds the old settings.
            show(
                    ctx,
                    400,
                    page,
                    current,
                    SandboxCard.of(
                                    console.registry(),
                                    services,
                                    features,
                                    versions,
                                    seedLines(current),
                                    limits,
                                    hints())
                            .withLifecycle(lifecycle(ttlDefault, ttlMax, maxLive)));
            return;
        }
        Project saved = ((ProjectForm.Check.Valid) check).project();
        console.saveProject(saved);
        WebGate.session(ctx)
                .flash(
                        saved.optedIn()
                                ? "Saved. The project's next request_sandbox provisions "
                                        + String.join(", ", saved.services()) + "."
                                : "Saved. The project is not opted in: its agents see no change.",
                        false);
        ctx.redirect("/projects/" + URLEncoder.encode(current.id(), StandardCharsets.UTF_8), HttpStatus.SEE_OTHER);
    }

    private SandboxCard.Lifecycle lifecycle(String ttlDefault, String ttlMax, String maxLive) {
        OperatorConsole.LifecycleLimits limits = console.limits();
        return new SandboxCard.Lifecycle(
                ttlDefault,
                ttlMax,
                maxLive,
                DurationText.format(limits.ttlDefault()),
                DurationText.format(limits.ttlMax()),
                limits.maxPerOwner());
    }

    private SandboxCard.LimitHints hints() {
        return SandboxCard.LimitHints.of(console.limitDefaults(), console.limitMaximums());
    }

    /** A project's limits as the card's fields show them ({@code 1g}, {@code 2}). */
    private static Map<String, Map<String, String>> limitsShown(Project p) {
        Map<String, Map<String, String>> shown = new TreeMap<>();
        p.limits().forEach((service, l) -> {
            Map<String, String> fields = new TreeMap<>();
            ProjectForm.limitsJson(l).forEach((k, v) -> fields.put(k, String.valueOf(v)));
            shown.put(service, fields);
        });
        return shown;
    }

    private void show(Context ctx, int status, Page page, Project project, SandboxCard card) {
        templates.render(
                ctx,
                status,
                "project.jte",
                Map.of(
                        "page",
                        page,
                        "project",
                        project,
                        "card",
                        card,
                        "versions",
                        versionLabels(card),
                        "templates",
                        console.templates(project.id())));
    }

    /**
     * The Version options' labels, keyed {@code engine:major} ({@code engine:} for the server's default image): which
     * image each runs and, for the default, which major, e.g. {@code server default image (PostgreSQL 15, roboco-sandbox/postgres:15)}.
     */
    private Map<String, String> versionLabels(SandboxCard card) {
        Map<String, String> labels = new TreeMap<>();
        for (SandboxCard.EngineOption e : card.engines()) {
            if (e.majors().isEmpty()) {
                continue;
            }
            labels.put(
                    e.name() + ":",
                    console.image(e.name(), "")
                            .map(c -> "server default image ("
                                    + (c.major().isEmpty() ? "" : e.displayName() + " " + c.major() + ", ") + c.image()
                                    + ")")
                            .orElse("server default image"));
            for (String m : e.majors()) {
                labels.put(
                        e.name() + ":" + m,
                        e.displayName() + " " + m
                                + console.image(e.name(), m)
                                        .map(c -> " (" + c.image() + ")")
                                        .orElse(""));
            }
        }
        return labels;
    }

    private void notFound(Context ctx) {
        templates.render(
                ctx,
                404,
                "message.jte",
                Map.of(
                        "page", Page.of("No such project", "projects", WebGate.session(ctx)),
                        "heading", "No such project",
                        "text", "There is no project with that id. Add it from the Projects page."));
    }

    private static String trimmed(String s) {
        return s == null ? "" : s.trim();
    }

    private static Map<String, String> seedLines(Project project) {
        Map<String, String> lines = new TreeMap<>();
        project.seeds().forEach((service, seed) -> lines.put(service, seed.describe()));
        return lines;
    }
}
