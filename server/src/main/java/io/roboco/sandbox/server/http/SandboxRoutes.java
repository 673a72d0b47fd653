package io.roboco.sandbox.server.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.roboco.sandbox.data.DataOutcome;
import io.roboco.sandbox.data.SandboxData;
import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.idempotency.IdempotentCalls;
import io.roboco.sandbox.plugin.ForeignOrphans;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.plugin.SandboxService;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.progress.ProgressTicker;
import io.roboco.sandbox.progress.TemplateTraffic;
import io.roboco.sandbox.request.AgentSlug;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.DurationText;
import io.roboco.sandbox.request.Labels;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.request.Owner;
import io.roboco.sandbox.request.ProjectId;
import io.roboco.sandbox.request.SandboxName;
import io.roboco.sandbox.request.ServiceName;
import io.roboco.sandbox.request.TemplateName;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;
import io.roboco.sandbox.verbs.Envelope;
import io.roboco.sandbox.views.SandboxViews;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Sandboxes as records (admin): create a named one, list with filters, show, delete, extend, clean up
 * expired ones (or, in the operator's foreign mode, other instances' leftovers) and release an agent's
 * verb set. Only a create's answer carries credentials.
 */
public final class SandboxRoutes {
    private static final Set<String> CREATE_FIELDS =
            Set.of("owner", "project", "services", "extensions", "name", "ttl", "labels", "template");
    private static final Set<String> CLEANUP_FIELDS = Set.of("dry_run", "owner", "foreign", "older_than", "force");

    private final Sandboxes sandboxes;
    private final ForeignOrphans foreign;
    private final SandboxPlugin plugin;
    private final Clock clock;
    private final KeyedAnswers keyed;

    /**
     * @param keys   idempotency keys of creates and checkpoints ({@code Idempotency-Key})
     * @param ticker progress of the slow ones, for a caller that asks ({@code Accept: application/x-ndjson})
     */
    public SandboxRoutes(
            Sandboxes sandboxes,
            ForeignOrphans foreign,
            SandboxPlugin plugin,
            IdempotentCalls<KeyedAnswers.Answer> keys,
            ProgressTicker ticker,
            Clock clock) {
        this.sandboxes = sandboxes;
        this.foreign = foreign;
        this.plugin = plugin;
        this.keyed = new KeyedAnswers(
                keys,
                ticker,
                project -> plugin.templates() instanceof TemplateTraffic traffic
                        ? traffic.now(project)
                        : Optional.empty());
        this.clock = clock;
    }

    void register(Javalin app) {
        app.get("/api/sandboxes", this::list);
        app.post("/api/sandboxes", this::create);
        app.post("/api/sandboxes/cleanup", this::cleanup);
        app.post("/api/sandboxes/release", this::release);
        app.get(
                "/api/sandboxes/{id}",
                ctx -> Json.write(
                        ctx, 200, Map.of("sandbox", SandboxViews.record(own(ctx), clock.instant(), plugin.manager()))));
        app.delete("/api/sandboxes/{id}", this::delete);
        app.post("/api/sandboxes/{id}/extend", this::extend);
        // Data operations (issue 13) on a sandbox record, the same SandboxData the verbs use.
        app.post("/api/sandboxes/{id}/snapshots", ctx -> data(ctx, SandboxData.SNAPSHOT_SCHEMA, bodyName(ctx)));
        app.get(
                "/api/sandboxes/{id}/snapshots/{name}/diff",
                ctx -> data(ctx, SandboxData.DIFF_SCHEMA, ctx.pathParam("name")));
        app.post("/api/sandboxes/{id}/checkpoints", ctx -> {
            String name = bodyName(ctx);
            keyed.answer(
                    ctx,
                    "POST /api/sandboxes/" + ctx.pathParam("id") + "/checkpoints",
                    found(ctx.pathParam("id")).project(),
                    Json.body(ctx),
                    () -> dataAnswer(ctx, SandboxData.CHECKPOINT, name));
        });
        app.post(
                "/api/sandboxes/{id}/checkpoints/{name}/rewind",
                ctx -> keyed.answer(
                        ctx,
                        "POST /api/sandboxes/" + ctx.pathParam("id") + "/checkpoints/" + ctx.pathParam("name")
                                + "/rewind",
                        found(ctx.pathParam("id")).project(),
                        Map.of(),
                        () -> dataAnswer(ctx, SandboxData.REWIND, ctx.pathParam("name"))));
        app.get(
                "/api/sandboxes/{id}/checkpoints/{name}/diff",
                ctx -> data(ctx, SandboxData.DIFF_DATA, ctx.pathParam("name")));
        new TemplateRoutes(sandboxes, plugin).register(app);
        app.exception(
                Sandboxes.NotFound.class, (e, ctx) -> Json.write(ctx, 404, Json.error("not_found", e.getMessage())));
        app.exception(
                Sandboxes.Conflict.class, (e, ctx) -> Json.write(ctx, 409, Json.error("conflict", e.getMessage())));
    }

    private void list(Context ctx) {
        String state = ctx.queryParam("state");
        Set<SandboxState> states = switch (state == null || state.isBlank() ? "live" : state) {
            case "live" -> EnumSet.of(SandboxState.LIVE);
            case "expired" -> EnumSet.of(SandboxState.EXPIRED);
            case "deleted" -> EnumSet.of(SandboxState.DELETED);
            case "all" -> EnumSet.allOf(SandboxState.class);
            default ->
                throw new BadRequest(
                        "state must be live, expired, deleted or all; got '" + Names.printable(state) + "'");
        };
        Map<String, String> labels = new TreeMap<>();
        for (String filter : ctx.queryParams("label")) {
            Map.Entry<String, String> e = Labels.parseFilter(filter);
            labels.put(e.getKey(), e.getValue());
        }
        String owner = blankToNull(ctx.queryParam("owner"));
        String project = blankToNull(ctx.queryParam("project"));
        if (owner != null) {
            Owner.parse(owner);
            ClientScope.requireOwner(ctx, owner, "owner " + owner);
        }
        if (ClientScope.owner(ctx) != null) {
            owner = ClientScope.owner(ctx); // a client token lists its owner's sandboxes only
        }
        if (project != null) {
            ProjectId.parse(project);
        }
        Instant now = clock.instant();
        List<Map<String, Object>> out = new ArrayList<>();
        for (SandboxRecord r : sandboxes.list(new SandboxQuery(owner, project, labels, states, null, now))) {
            out.add(SandboxViews.record(r, now, plugin.manager()));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("sandboxes", out);
        body.put("capacity", SandboxViews.capacity(sandboxes.book().capacity()));
        Json.write(ctx, 200, body);
    }

    private void create(Context ctx) throws InterruptedException {
        Map<String, Object> sent = Json.body(ctx);
        String project = sent.get("project") instanceof String p ? p : "";
        keyed.answer(ctx, "POST /api/sandboxes", project, sent, () -> created(ctx, new LinkedHashMap<>(sent)));
    }

    private KeyedAnswers.Answer created(Context ctx, Map<String, Object> body) throws InterruptedException {
        for (String key : body.keySet()) {
            if (!CREATE_FIELDS.contains(key)) {
                throw new BadRequest("unknown field '" + Names.printable(key) + "'; a sandbox takes: "
                        + String.join(", ", new TreeSet<>(CREATE_FIELDS)));
            }
        }
        String client = ClientScope.owner(ctx);
        if (client != null && body.get("owner") == null) {
            body.put("owner", client); // a client token's sandboxes are its owner's
        }
        String owner = requireOwnerThatExists(requiredString(body, "owner"));
        ClientScope.requireOwner(ctx, owner, "owner " + owner);
        String project = ProjectId.parse(requiredString(body, "project")).value();
        List<String> services = new ArrayList<>();
        for (String s : strings("services", body.get("services"))) {
            services.add(ServiceName.parse(s).value());
        }
        Map<String, List<String>> extensions = new LinkedHashMap<>();
        Object raw = body.get("extensions");
        if (raw != null) {
            if (!(raw instanceof Map<?, ?> map)) {
                throw new BadRequest(
                        "'extensions' must be an object mapping a service to an array of names, e.g. {\"postgres\":[\"pg_trgm\"]}");
            }
            map.forEach((k, v) ->
                    extensions.put(ServiceName.parse(String.valueOf(k)).value(), strings("extensions." + k, v)));
        }
        String name = body.get("name") == null
                ? ""
                : SandboxName.parseNamed("name", body.get("name")).value();
        Duration ttl = body.get("ttl") == null ? null : DurationText.require("ttl", body.get("ttl"));
        Map<String, String> labels = Labels.parse("labels", body.get("labels"));
        String template = body.get("template") == null
                ? null
                : TemplateName.parse("template", body.get("template")).value();
        Sandboxes.CreateOutcome outcome = sandboxes.create(
                new Sandboxes.CreateRequest(owner, project, services, extensions, name, ttl, labels, template));
        if (outcome instanceof Sandboxes.CreateOutcome.Created created) {
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("ok", true);
            answer.put("sandbox", SandboxViews.created(created.record(), created.services()));
            return new KeyedAnswers.Answer(200, answer);
        }
        return new KeyedAnswers.Answer(
                200,
                Envelope.of(((Sandboxes.CreateOutcome.NotCreated) outcome).decision())
                        .asMap());
    }

    private void delete(Context ctx) throws InterruptedException {
        String id = own(ctx).id();
        Sandboxes.Deletion deletion = sandboxes.delete(id, "deleted by an operator");
        switch (deletion) {
            case NOT_FOUND -> throw new Sandboxes.NotFound("no sandbox '" + Names.printable(id) + "'");
            case OTHER_INSTANCE ->
                throw new Sandboxes.Conflict(
                        "sandbox " + id + " belongs to instance " + found(id).instance()
                                + "; delete it through that server (its containers run on its Docker host)");
            default -> {
                Map<String, Object> answer = new LinkedHashMap<>();
                answer.put("ok", true);
                answer.put("id", id);
                answer.put("deleted", deletion == Sandboxes.Deletion.DELETED);
                answer.put("state", "deleted");
                Json.write(ctx, 200, answer);
            }
        }
    }

    private void extend(Context ctx) {
        Map<String, Object> body = Json.body(ctx);
        if (!body.keySet().equals(Set.of("ttl"))) {
            throw new BadRequest("body must be {\"ttl\": \"<duration>\"}, e.g. {\"ttl\":\"2h\"}");
        }
        SandboxRecord next = sandboxes.extend(own(ctx).id(), DurationText.require("ttl", body.get("ttl")));
        Json.write(
                ctx, 200, Map.of("ok", true, "sandbox", SandboxViews.record(next, clock.instant(), plugin.manager())));
    }

    private void cleanup(Context ctx) throws InterruptedException {
        Map<String, Object> body = Json.body(ctx);
        for (String key : body.keySet()) {
            if (!CLEANUP_FIELDS.contains(key)) {
                throw new BadRequest("unknown field '" + Names.printable(key)
                        + "'; cleanup takes: dry_run, owner, foreign, older_than, force");
            }
        }
        boolean dryRun = bool(body, "dry_run", true);
        boolean foreignMode = bool(body, "foreign", false);
        boolean force = bool(body, "force", false);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("ok", true);
        answer.put("dry_run", dryRun);
        if (foreignMode) {
            if (body.get("owner") != null) {
                throw new BadRequest(
                        "'owner' does not apply to foreign cleanup (other instances' containers have no records here)");
            }
            Duration olderThan = DurationText.require("older_than", body.get("older_than"));
            List<Map<String, Object>> found = new ArrayList<>();
            for (ForeignOrphans.Found f : foreign.run(olderThan, dryRun, force)) {
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("container_id", f.containerId());
                v.put("container_name", f.containerName());
                v.put("instance", f.instance());
                v.put("instance_state", f.instanceState().name().toLowerCase());
                v.put("service", f.service());
                v.put("agent", f.agent());
                v.put("age_seconds", f.ageSeconds());
                v.put("action", f.action());
                found.add(v);
            }
            answer.put("foreign", found);
            Json.write(ctx, 200, answer);
            return;
        }
        if (force || body.get("older_than") != null) {
            throw new BadRequest("'force' and 'older_than' apply only with \"foreign\": true");
        }
        String owner = body.get("owner") == null
                ? null
                : Owner.parse(String.valueOf(body.get("owner"))).value();
        Instant now = clock.instant();
        List<Map<String, Object>> expired = new ArrayList<>();
        for (SandboxRecord r : sandboxes.expired(owner)) {
            expired.add(SandboxViews.record(r, now, plugin.manager()));
        }
        answer.put("expired", expired);
        answer.put("removed", dryRun ? List.of() : sandboxes.removeExpired(owner, Sandboxes.CLEANUP_VERB));
        Json.write(ctx, 200, answer);
    }

    /**
     * A named sandbox's owner: a CI job ({@code job:<name>}), or an agent that is spawned now, whose engagement it then
     * belongs to (it ends when the agent is deleted or spawned again). A bare name that is no spawned agent is refused,
     * so a CI job can never share an owner, and with it quotas and sandboxes, with an agent spawned later under that name.
     */
    private String requireOwnerThatExists(String raw) {
        String owner = Owner.parse(raw).value();
        if (!Owner.isJob(owner) && plugin.store().findAgent(owner).isEmpty()) {
            throw new BadRequest("owner '" + owner + "' is not a spawned agent; name a CI job's sandbox owner "
                    + Owner.JOB_PREFIX + owner + ", or spawn the agent first (POST /api/agents/" + owner + "/spawn)");
        }
        return owner;
    }

    private void release(Context ctx) {
        Map<String, Object> body = Json.body(ctx);
        if (!body.keySet().equals(Set.of("agent"))) {
            throw new BadRequest("body must be {\"agent\": \"<slug>\"}");
        }
        String agent = AgentSlug.parse(String.valueOf(body.get("agent"))).value();
        int removed = plugin.service()
                .release(SandboxService.Release.after(agent, "operator_release"))
                .removed();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("ok", true);
        answer.put("agent", agent);
        answer.put("removed", removed);
        Json.write(ctx, 200, answer);
    }

    /**
     * A data operation on a sandbox record: an owner's verb set (kind default), or a named sandbox whose credentials this
     * server holds (created here, or re-adopted after a restart). Not live: 409; unknown: 404.
     */
    private void data(Context ctx, String verb, String name) throws InterruptedException {
        KeyedAnswers.Answer answer = dataAnswer(ctx, verb, name);
        Json.write(ctx, answer.status(), answer.body());
    }

    private KeyedAnswers.Answer dataAnswer(Context ctx, String verb, String name) throws InterruptedException {
        SandboxRecord record = found(ctx.pathParam("id"));
        DataOutcome outcome = sandboxes.dataOperation(record.id(), verb, name);
        if (outcome instanceof DataOutcome.Done done) {
            Map<String, Object> body = new LinkedHashMap<>(done.evidence());
            body.put("sandbox", record.id());
            return new KeyedAnswers.Answer(200, body);
        } else if (outcome instanceof DataOutcome.Refused refused) {
            return new KeyedAnswers.Answer(409, Json.error("conflict", refused.reason()));
        }
        DataOutcome.Failed failed = (DataOutcome.Failed) outcome;
        Map<String, Object> body = new LinkedHashMap<>(Json.error("invalid_state", failed.reason()));
        body.put("retryable", failed.retryable());
        return new KeyedAnswers.Answer(503, body);
    }

    private static String bodyName(Context ctx) {
        Map<String, Object> body = Json.body(ctx);
        if (body.size() != 1 || !(body.get("name") instanceof String n)) {
            throw new BadRequest("body must be {\"name\": \"…\"} (" + CheckpointName.SHAPE.rule() + ")");
        }
        return n;
    }

    /** The path's sandbox, 404 when unknown, 403 when it is not the calling client's owner's. */
    private SandboxRecord own(Context ctx) {
        SandboxRecord record = found(ctx.pathParam("id"));
        ClientScope.requireOwn(ctx, record);
        return record;
    }

    private SandboxRecord found(String id) {
        return sandboxes.find(id).orElseThrow(() -> new Sandboxes.NotFound("no sandbox '" + Names.printable(id) + "'"));
    }

    private static boolean bool(Map<String, Object> body, String field, boolean fallback) {
        Object v = body.get(field);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof Boolean b)) {
            throw new BadRequest("'" + field + "' must be true or false");
        }
        return b;
    }

    private static String requiredString(Map<String, Object> body, String field) {
        if (!(body.get(field) instanceof String s) || s.isBlank()) {
            throw new BadRequest("'" + field + "' is required and must be a non-empty string");
        }
        return s;
    }

    private static List<String> strings(String field, Object raw) {
        if (raw == null) {
            return List.of();
        }
        if (!(raw instanceof List<?> list) || list.stream().anyMatch(o -> !(o instanceof String))) {
            throw new BadRequest("'" + field + "' must be an array of strings");
        }
        return list.stream().map(String.class::cast).toList();
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
