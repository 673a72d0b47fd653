package io.roboco.sandbox.web;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.roboco.sandbox.plugin.OperatorConsole;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.settings.AuditPage;
import io.roboco.sandbox.settings.AuditQuery;
import io.roboco.sandbox.settings.AuditRecord;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The audit trail: verb calls and sweeps, newest first, filtered by agent and decision through a GET form. */
final class AuditPages {
    static final List<String> DECISIONS = List.of(
            "granted", "refused", "invalid_state", "released", "sweep", "removed", "expired", "deleted", "extended");
    static final List<Integer> LIMITS = List.of(50, 100, 500, 1000);
    static final int DEFAULT_LIMIT = 100;

    private final OperatorConsole console;
    private final Templates templates;

    AuditPages(OperatorConsole console, Templates templates) {
        this.console = console;
        this.templates = templates;
    }

    void register(Javalin app) {
        app.get("/audit", this::show, Access.ADMIN);
    }

    private void show(Context ctx) {
        String agent = blankToNull(ctx.queryParam("agent"));
        String decision = blankToNull(ctx.queryParam("decision"));
        Page page = Page.of("Audit", "audit", WebGate.session(ctx));
        int status = 200;
        if (decision != null && !DECISIONS.contains(decision)) {
            page = page.withMessage(
                    "Unknown decision filter; choose one of " + String.join(", ", DECISIONS) + ".", true);
            decision = null;
            status = 400;
        }
        int limit = DEFAULT_LIMIT;
        try {
            String raw = ctx.queryParam("limit");
            limit = raw == null || raw.isBlank() ? DEFAULT_LIMIT : Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            limit = DEFAULT_LIMIT;
        }
        if (!LIMITS.contains(limit)) {
            limit = DEFAULT_LIMIT;
        }
        String cursor = blankToNull(ctx.queryParam("cursor"));
        AuditPage found;
        try {
            found = console.auditPage(new AuditQuery(agent, decision, limit, cursor));
        } catch (BadRequest e) {
            page = page.withMessage(e.getMessage(), true);
            status = 400;
            cursor = null;
            found = console.auditPage(new AuditQuery(agent, decision, limit, null));
        }
        List<AuditRow> rows = found.records().stream().map(AuditPages::row).toList();
        Set<String> agents = new TreeSet<>();
        agents.addAll(console.agentSlugs());
        Map<String, Object> params = new HashMap<>();
        params.put("page", page);
        params.put("rows", rows);
        params.put("agent", agent == null ? "" : agent);
        params.put("decision", decision == null ? "" : decision);
        params.put("limit", limit);
        params.put("decisions", DECISIONS);
        params.put("limits", LIMITS);
        params.put("agents", List.copyOf(agents));
        params.put("older", found.nextCursor() == null ? "" : link(agent, decision, limit, found.nextCursor()));
        params.put("paged", cursor != null);
        templates.render(ctx, status, "audit.jte", params);
    }

    /** The next (older) page's address: the same filters, the answer's cursor. */
    private static String link(String agent, String decision, int limit, String cursor) {
        StringBuilder sb = new StringBuilder("/audit?limit=").append(limit);
        if (agent != null) {
            sb.append("&agent=").append(URLEncoder.encode(agent, StandardCharsets.UTF_8));
        }
        if (decision != null) {
            sb.append("&decision=").append(URLEncoder.encode(decision, StandardCharsets.UTF_8));
        }
        return sb.append("&cursor=")
                .append(URLEncoder.encode(cursor, StandardCharsets.UTF_8))
                .toString();
    }

    private static AuditRow row(AuditRecord r) {
        return new AuditRow(
                SandboxPages.TIME.format(r.time()),
                r.agent(),
                r.project(),
                r.verb(),
                r.decision(),
                r.reason(),
                String.join(", ", r.services()),
                r.durationMillis());
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
