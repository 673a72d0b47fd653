package io.roboco.sandbox.web;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.plugin.OperatorConsole;
import io.roboco.sandbox.provision.ServiceInstance;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Live sandboxes. Loading the page never contacts a sandbox (it stays fast with many agents);
 * the state column is re-verified live on demand: "Verify" for one agent, "Verify all" for every
 * one, each running the same check the verb runs before it trusts a cached sandbox. "Release"
 * tears an agent's sandbox down through {@link OperatorConsole#release}, audited as
 * {@value #RELEASE_VERB}.
 */
final class SandboxPages {
    static final String RELEASE_VERB = Dashboard.RELEASE_VERB;
    static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

    private final OperatorConsole console;
    private final Templates templates;
    private final Clock clock;
    /** Last on-demand verification per agent, valid only for the sandbox set it checked. */
    private final Map<String, Verification> verified = new ConcurrentHashMap<>();

    private record Verification(Instant sandboxCreated, Instant at, Map<String, Boolean> live) {
    }

    SandboxPages(OperatorConsole console, Templates templates, Clock clock) {
        this.console = console;
        this.templates = templates;
        this.clock = clock;
    }

    void register(Javalin app) {
        app.get("/", ctx -> ctx.redirect("/sandboxes", HttpStatus.SEE_OTHER), Access.ADMIN);
        app.get("/sandboxes", this::show, Access.ADMIN);
        app.post("/sandboxes/verify", this::verifyAll, Access.ADMIN);
        app.post("/sandboxes/{agent}/verify", this::verifyOne, Access.ADMIN);
        app.post("/sandboxes/{agent}/release", this::release, Access.ADMIN);
    }

    private void show(Context ctx) {
        List<AgentSandbox> live = new ArrayList<>(console.liveSandboxes());
        live.sort(Comparator.comparing(AgentSandbox::agent));
        verified.keySet().retainAll(live.stream().map(AgentSandbox::agent).toList());
        List<SandboxRow> rows = live.stream().map(this::row).toList();
        templates.render(ctx, 200, "sandboxes.jte", Map.of(
                "page", Page.of("Live sandboxes", "sandboxes", WebGate.session(ctx)),
                "rows", rows,
                "flagEffective", console.flagEffective()));
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
        WebGate.session(ctx).flash("Verified " + live.size() + " sandbox set(s) live: "
                + (failing == 0 ? "every service answered." : failing + " with a service not answering."), failing > 0);
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
            session.flash("Released " + agent + "'s sandbox: " + removed + " container(s) removed. "
                    + "The agent gets a fresh one (new credentials) on its next request_sandbox.", false);
        }
        ctx.redirect("/sandboxes", HttpStatus.SEE_OTHER);
    }

    private Verification verify(AgentSandbox sandbox) {
        Verification v = new Verification(sandbox.created(), clock.instant(), console.verify(sandbox.agent()));
        verified.put(sandbox.agent(), v);
        return v;
    }

    private static String summary(String agent, Verification v) {
        List<String> down = v.live().entrySet().stream().filter(e -> !e.getValue()).map(Map.Entry::getKey).toList();
        return down.isEmpty() ? "Verified " + agent + "'s sandbox live: every service answered."
                : "Verified " + agent + "'s sandbox: not answering: " + String.join(", ", down)
                + ". Its next request_sandbox re-provisions the set; or release it.";
    }

    private SandboxRow row(AgentSandbox sandbox) {
        Verification v = verified.get(sandbox.agent());
        if (v != null && !v.sandboxCreated().equals(sandbox.created())) {
            v = null; // checked an earlier sandbox set of this agent
        }
        List<SandboxRow.Service> services = new ArrayList<>();
        for (ServiceInstance instance : new TreeMap<>(sandbox.services()).values()) {
            services.add(new SandboxRow.Service(instance.service(), shortId(instance.containerId()), instance.image(),
                    List.copyOf(new TreeSet<>(instance.features())), v == null ? null : v.live().get(instance.service())));
        }
        String state;
        String text;
        if (v == null) {
            state = "unchecked";
            text = "not re-verified since it was last served; press Verify";
        } else if (v.live().containsValue(false)) {
            state = "failing";
            text = "a service did not answer at " + TIME.format(v.at());
        } else {
            state = "live";
            text = "every service answered at " + TIME.format(v.at());
        }
        return new SandboxRow(path(sandbox.agent()), sandbox.agent(), sandbox.project(), services, age(Duration.between(sandbox.created(), clock.instant())),
                TIME.format(sandbox.created()), state, text);
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
}
