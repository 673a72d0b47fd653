package io.roboco.sandbox.web;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.plugin.ActivityHistory;
import io.roboco.sandbox.plugin.OperatorConsole;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.DurationText;
import io.roboco.sandbox.request.Labels;
import io.roboco.sandbox.settings.ContainerRef;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sandboxes: every record (an agent's verb set and named ones) with owner, name, labels and expiry,
 * filters, the capacity gauge, and a cleanup preview of what has expired. Loading the page never contacts
 * a sandbox; a verb set's state is re-verified live on demand ("Verify", "Verify all": the same check the
 * verb runs), and a chart of the last hour (live sandboxes, request latency) from the server's own metrics.
 * "Release" tears an agent's verb set down (audited {@value #RELEASE_VERB}); "Extend" and
 * "Delete" act on one record; "Clean up now" removes exactly the expired ones the preview lists.
 */
final class SandboxPages {
    static final String RELEASE_VERB = Dashboard.RELEASE_VERB;
    static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);
    static final List<String> STATES = List.of("live", "expired", "all");

    private final OperatorConsole console;
    private final ActivityHistory activity;
    private final Templates templates;
    private final Clock clock;
    /** Last on-demand verification per agent, valid only for the sandbox set it checked. */
    private final Map<String, Verification> verified = new ConcurrentHashMap<>();

    private record Verification(Instant sandboxCreated, Instant at, Map<String, Boolean> live) {}

    SandboxPages(OperatorConsole console, ActivityHistory activity, Templates templates, Clock clock) {
        this.console = console;
        this.activity = activity;
        this.templates = templates;
        this.clock = clock;
    }

    void register(Javalin app) {
        app.get("/", ctx -> ctx.redirect("/sandboxes", HttpStatus.SEE_OTHER), Access.ADMIN);
        app.get("/sandboxes", this::show, Access.ADMIN);
        app.post("/sandboxes/verify", this::verifyAll, Access.ADMIN);
        app.post("/sandboxes/cleanup", this::cleanup, Access.ADMIN);
        app.post("/sandboxes/{agent}/verify", this::verifyOne, Access.ADMIN);
        app.post("/sandboxes/{agent}/release", this::release, Access.ADMIN);
        app.post("/sandboxes/id/{id}/extend", this::extend, Access.ADMIN);
        app.post("/sandboxes/id/{id}/delete", this::delete, Access.ADMIN);
    }

    private void show(Context ctx) {
        Page page = Page.of("Live sandboxes", "sandboxes", WebGate.session(ctx));
        String owner = blank(ctx.queryParam("owner"));
        String project = blank(ctx.queryParam("project"));
        String label = blank(ctx.queryParam("label"));
        String state = blank(ctx.queryParam("state"));
        state = state == null || !STATES.contains(state) ? "live" : state;
        Map<String, String> labels = new HashMap<>();
        int status = 200;
        if (label != null) {
            try {
                Map.Entry<String, String> e = Labels.parseFilter(label);
                labels.put(e.getKey(), e.getValue());
            } catch (BadRequest e) {
                page = page.withMessage("Label filter ignored: " + e.getMessage(), true);
                status = 400;
            }
        }
        Set<SandboxState> states = switch (state) {
            case "expired" -> EnumSet.of(SandboxState.EXPIRED);
            case "all" -> EnumSet.of(SandboxState.LIVE, SandboxState.EXPIRED);
            default -> EnumSet.of(SandboxState.LIVE);
        };
        Instant now = clock.instant();
        List<SandboxRecord> records =
                console.sandboxRecords(new SandboxQuery(owner, project, labels, states, null, now));
        verified.keySet()
                .retainAll(console.liveSandboxes().stream()
                        .map(AgentSandbox::agent)
                        .toList());
        List<SandboxRow> rows = records.stream().map(r -> row(r, now)).toList();
        List<SandboxRow> expired =
                console.expiredSandboxes(null).stream().map(r -> row(r, now)).toList();
        OperatorConsole.LifecycleLimits limits = console.limits();
        Map<String, Object> params = new HashMap<>();
        params.put("page", page);
        params.put("rows", rows);
        params.put("expired", expired);
        params.put("flagEffective", console.flagEffective());
        params.put("owner", owner == null ? "" : owner);
        params.put("project", project == null ? "" : project);
        params.put("label", label == null ? "" : label);
        params.put("state", state);
        params.put("states", STATES);
        params.put("gauge", CapacityGauge.of(limits));
        params.put("chart", ActivityChart.of(activity));
        params.put("ttlDefault", DurationText.format(limits.ttlDefault()));
        templates.render(ctx, status, "sandboxes.jte", params);
    }

    private void verifyOne(Context ctx) {
        String agent = ctx.pathParam("agent");
        Sessions.Session session = WebGate.session(ctx);
        Optional<AgentSandbox> sandbox = console.sandbox(agent);
        if (sandbox.isEmpty()) {
            session.flash("Agent " + agent + " has no live sandbox (it may have just been released).", true);
        } else {
            Verification v = verify(sandbox.get());
            session.flash(summary(agent, v), v.live().containsValue(false));
        }
        ctx.redirect("/sandboxes", HttpStatus.SEE_OTHER);
    }

    private void verifyAll(Context ctx) {
        int failing = 0;
        List<AgentSandbox> live = console.liveSandboxes();
        for (AgentSandbox sandbox : live) {
            if (verify(sandbox).live().containsValue(false)) {
                failing++;
            }
        }
        WebGate.session(ctx)
                .flash(
                        "Verified " + live.size() + " sandbox set(s) live: "
                                + (failing == 0
                                        ? "every service answered."
                                        : failing + " with a service not answering."),
                        failing > 0);
        ctx.redirect("/sandboxes", HttpStatus.SEE_OTHER);
    }

    private void release(Context ctx) {
        String agent = ctx.pathParam("agent");
        Sessions.Session session = WebGate.session(ctx);
        if (console.sandbox(agent).isEmpty()) {
            session.flash("Agent " + agent + " has no live sandbox; nothing to release.", true);
        } else {
            int removed = console.release(agent, RELEASE_VERB);
            verified.remove(agent);
            session.flash(
                    "Released " + agent + "'s sandbox: " + removed + " container(s) removed. "
                            + "The agent gets a fresh one (new credentials) on its next request_sandbox.",
                    false);
        }
        ctx.redirect("/sandboxes", HttpStatus.SEE_OTHER);
    }

    private void extend(Context ctx) {
        String id = ctx.pathParam("id");
        Sessions.Session session = WebGate.session(ctx);
        Optional<Duration> ttl = DurationText.parse(ctx.formParam("ttl"));
        if (ttl.isEmpty()) {
            session.flash("Not extended: the TTL must be " + DurationText.RULE + ".", true);
        } else {
            try {
                SandboxRecord next = console.extend(id, ttl.get());
                session.flash("Extended " + id + ": it now expires " + TIME.format(next.expires()) + ".", false);
            } catch (RuntimeException e) {
                session.flash("Not extended: " + e.getMessage(), true);
            }
        }
        ctx.redirect("/sandboxes", HttpStatus.SEE_OTHER);
    }

    private void delete(Context ctx) {
        String id = ctx.pathParam("id");
        boolean deleted = console.delete(id);
        WebGate.session(ctx)
                .flash(
                        deleted
                                ? "Deleted " + id + ": its containers are removed."
                                : "Sandbox " + id
                                        + " was not deleted: it is unknown, already deleted, or another server's.",
                        !deleted);
        ctx.redirect("/sandboxes", HttpStatus.SEE_OTHER);
    }

    private void cleanup(Context ctx) {
        List<String> removed = console.cleanup(null);
        WebGate.session(ctx)
                .flash(
                        removed.isEmpty()
                                ? "Nothing to clean up: no sandbox has expired."
                                : "Cleaned up " + removed.size() + " expired sandbox(es): " + String.join(", ", removed)
                                        + ".",
                        false);
        ctx.redirect("/sandboxes", HttpStatus.SEE_OTHER);
    }

    private Verification verify(AgentSandbox sandbox) {
        Verification v = new Verification(sandbox.created(), clock.instant(), console.verify(sandbox.agent()));
        verified.put(sandbox.agent(), v);
        return v;
    }

    private static String summary(String agent, Verification v) {
        List<String> down = v.live().entrySet().stream()
                .filter(e -> !e.getValue())
                .map(Map.Entry::getKey)
                .toList();
        return down.isEmpty()
                ? "Verified " + agent + "'s sandbox live: every service answered."
                : "Verified " + agent + "'s sandbox: not answering: " + String.join(", ", down)
                        + ". Its next request_sandbox re-provisions the set; or release it.";
    }

    private SandboxRow row(SandboxRecord r, Instant now) {
        boolean verbSet = r.kind() == SandboxRecord.Kind.DEFAULT;
        AgentSandbox cached = verbSet
                ? console.sandbox(r.owner()).filter(e -> e.id().equals(r.id())).orElse(null)
                : null;
        Verification v = cached == null ? null : verified.get(r.owner());
        if (v != null && !v.sandboxCreated().equals(cached.created())) {
            v = null; // checked an earlier sandbox set of this agent
        }
        List<SandboxRow.Service> services = new ArrayList<>();
        for (ContainerRef c : r.containers()) {
            List<String> features = cached != null && cached.services().containsKey(c.service())
                    ? List.copyOf(
                            new TreeSet<>(cached.services().get(c.service()).features()))
                    : c.features();
            services.add(new SandboxRow.Service(
                    c.service(),
                    shortId(c.containerId()),
                    c.image(),
                    features,
                    v == null ? null : v.live().get(c.service()),
                    version(c),
                    c.seed()));
        }
        String state;
        String text;
        if (!verbSet) {
            state = "unchecked";
            text =
                    "named sandbox: not re-verified from this page (its owner checks it with the credentials it was given)";
        } else if (v == null) {
            state = "unchecked";
            text = "not re-verified since it was last served; press Verify";
        } else if (v.live().containsValue(false)) {
            state = "failing";
            text = "a service did not answer at " + TIME.format(v.at());
        } else {
            state = "live";
            text = "every service answered at " + TIME.format(v.at());
        }
        Instant expires = cached != null && cached.expires() != null ? cached.expires() : r.expires();
        Duration left = Duration.between(now, expires);
        String expiresIn =
                left.isNegative() || left.isZero() ? "expired " + age(left.negated()) + " ago" : "in " + age(left);
        List<String> labels = r.labels().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .toList();
        return new SandboxRow(
                path(r.owner()),
                "/sandboxes/id/" + URLEncoder.encode(r.id(), StandardCharsets.UTF_8),
                r.id(),
                r.owner(),
                r.name(),
                r.kind().wire(),
                r.project(),
                labels,
                services,
                age(Duration.between(r.created(), now)),
                TIME.format(r.created()),
                TIME.format(expires),
                expiresIn,
                r.state(now).wire(),
                state,
                text);
    }

    /** {@code PostgreSQL 17}: the major the record names, else the one its image's tag says; empty when neither does. */
    private String version(ContainerRef c) {
        Optional<Engine> engine = console.registry().find(c.service());
        if (engine.isEmpty()) {
            return c.major();
        }
        String major = c.major().isEmpty() ? engine.get().majorOf(c.image()).orElse("") : c.major();
        return major.isEmpty() ? "" : engine.get().displayName() + " " + major;
    }

    static String shortId(String id) {
        return id == null ? "" : id.length() > 12 ? id.substring(0, 12) : id;
    }

    static String age(Duration d) {
        long s = Math.max(0, d.toSeconds());
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return s / 60 + "m " + s % 60 + "s";
        }
        if (s < 86_400) {
            return s / 3600 + "h " + s % 3600 / 60 + "m";
        }
        return s / 86_400 + "d " + s % 86_400 / 3600 + "h";
    }

    static String path(String agent) {
        return "/sandboxes/" + URLEncoder.encode(agent, StandardCharsets.UTF_8);
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
