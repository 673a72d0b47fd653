package io.roboco.sandbox.mcp;

import io.roboco.sandbox.guard.AgentOperation;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.DurationText;
import io.roboco.sandbox.request.Labels;
import io.roboco.sandbox.request.Owner;
import io.roboco.sandbox.request.SandboxId;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;
import io.roboco.sandbox.views.SandboxViews;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Sandboxes as records, through MCP: {@code list_sandboxes} and {@code extend_sandbox} (an agent: its own; the
 * operator: any), and the operator's {@code delete_sandbox} and {@code cleanup}. Answers are the JSON of the
 * matching {@code /api/sandboxes} routes; the gate has already resolved a named {@code sandbox} among the
 * caller's own. Never a credential.
 */
final class SandboxTools {
    private final SandboxPlugin plugin;
    private final Sandboxes sandboxes;
    private final Clock clock;

    SandboxTools(SandboxPlugin plugin, Sandboxes sandboxes, Clock clock) {
        this.plugin = plugin;
        this.sandboxes = sandboxes;
        this.clock = clock;
    }

    static Map<String, Object> sandboxArgument(String description) {
        return McpTools.string(description, SandboxId.SHAPE);
    }

    List<ToolSpec> specs() {
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("type", "string");
        state.put("enum", List.of("live", "expired", "deleted", "all"));
        state.put("description", "which sandboxes (default live)");
        Map<String, Object> labels = new LinkedHashMap<>();
        labels.put("type", "object");
        labels.put("description", "only sandboxes carrying all these labels, e.g. {\"purpose\":\"migration-test\"}");
        labels.put("additionalProperties", Map.of("type", "string"));
        Map<String, Object> listArgs = new LinkedHashMap<>();
        listArgs.put("state", state);
        listArgs.put("labels", labels);
        listArgs.put(
                "owner",
                McpTools.string("operator only: one owner's sandboxes (an agent slug, or job:<name>)", Owner.SHAPE));
        Map<String, Object> ttl =
                McpTools.string("how long from now, e.g. 30m, 2h (never past the sandbox's max lifetime)", null, 16);
        return List.of(
                new ToolSpec(
                        "list_sandboxes",
                        "List sandboxes",
                        "Your sandboxes (the admin token: every one): id, name, kind (default = your request_sandbox set, or"
                                + " named), services, containers, labels, state, expiry. No credentials.",
                        McpTools.object(listArgs, List.of()),
                        true,
                        false,
                        true,
                        ToolSpec.Audience.BOTH,
                        ToolSpec.Scope.CALLER,
                        this::list,
                        AgentOperation.LIST_SANDBOXES),
                new ToolSpec(
                        "extend_sandbox",
                        "Extend a sandbox",
                        "Keep a sandbox of yours alive longer: its expiry becomes now + ttl (at most its max lifetime)."
                                + " Without 'sandbox', your request_sandbox set.",
                        McpTools.object(
                                Map.of("sandbox", sandboxArgument("the sandbox id (list_sandboxes)"), "ttl", ttl),
                                List.of("ttl")),
                        false,
                        false,
                        true,
                        ToolSpec.Audience.BOTH,
                        ToolSpec.Scope.CALLER,
                        this::extend,
                        AgentOperation.EXTEND),
                new ToolSpec(
                        "delete_sandbox",
                        "Delete a sandbox",
                        "Operator: remove any sandbox now, its containers and data. (Agents: release_sandbox.)",
                        McpTools.object(Map.of("sandbox", sandboxArgument("the sandbox id")), List.of("sandbox")),
                        false,
                        true,
                        true,
                        ToolSpec.Audience.OPERATOR,
                        ToolSpec.Scope.CALLER,
                        this::delete,
                        null),
                new ToolSpec(
                        "cleanup",
                        "Remove expired sandboxes",
                        "Operator: list expired sandboxes (dry_run, the default) or remove them; optionally one owner's.",
                        McpTools.object(
                                Map.of(
                                        "dry_run",
                                        Map.of("type", "boolean", "description", "only list (default true)"),
                                        "owner",
                                        McpTools.string(
                                                "one owner's only (an agent slug, or job:<name>)", Owner.SHAPE)),
                                List.of()),
                        false,
                        true,
                        false,
                        ToolSpec.Audience.OPERATOR,
                        ToolSpec.Scope.CALLER,
                        this::cleanup,
                        null));
    }

    private ToolResult list(ToolCall call) {
        Set<SandboxState> states = switch (call.string("state") == null ? "live" : call.string("state")) {
            case "expired" -> EnumSet.of(SandboxState.EXPIRED);
            case "deleted" -> EnumSet.of(SandboxState.DELETED);
            case "all" -> EnumSet.allOf(SandboxState.class);
            default -> EnumSet.of(SandboxState.LIVE);
        };
        String owner;
        if (call.caller() instanceof Caller.Agent agent) {
            if (call.string("owner") != null && !call.string("owner").equals(agent.slug())) {
                throw new BadRequest("'owner' is for the operator; an agent lists its own sandboxes");
            }
            owner = agent.slug();
        } else {
            owner = call.string("owner");
        }
        Map<String, String> labels = call.arguments().get("labels") == null
                ? Map.of()
                : Labels.parse("labels", call.arguments().get("labels"));
        Instant now = clock.instant();
        List<Map<String, Object>> out = new ArrayList<>();
        for (SandboxRecord r : sandboxes.list(new SandboxQuery(owner, null, labels, states, null, now))) {
            out.add(SandboxViews.record(r, now, plugin.manager()));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("sandboxes", out);
        if (call.caller() instanceof Caller.Operator) {
            body.put("capacity", SandboxViews.capacity(sandboxes.book().capacity()));
        }
        StringBuilder text = new StringBuilder(
                out.size() + " sandbox(es)" + (call.caller() instanceof Caller.Agent ? " of yours" : ""));
        for (Map<String, Object> s : out) {
            text.append("\n")
                    .append(s.get("id"))
                    .append(' ')
                    .append(s.get("kind"))
                    .append(s.get("name").toString().isEmpty() ? "" : " '" + s.get("name") + "'")
                    .append(' ')
                    .append(s.get("services"))
                    .append(", ")
                    .append(s.get("state"))
                    .append(", expires ")
                    .append(s.get("expires"));
        }
        return ToolResult.ok(body, text.toString());
    }

    private ToolResult extend(ToolCall call) {
        Duration ttl = DurationText.require("ttl", call.arguments().get("ttl"));
        String id = call.sandbox() != null ? call.sandbox().id() : null;
        if (id == null) {
            // No 'sandbox': the caller's verb set, which must be live.
            id = call.caller() instanceof Caller.Agent agent
                    ? plugin.sandboxOf(agent.slug()).map(s -> s.id()).orElse(null)
                    : null;
            if (id == null || id.isEmpty()) {
                String reason = call.caller() instanceof Caller.Agent
                        ? "you have no live sandbox to extend; call request_sandbox first"
                        : "name the sandbox to extend ('sandbox')";
                return ToolResult.failed(Gate.failure("invalid_state", reason, false), reason);
            }
        }
        try {
            SandboxRecord next = sandboxes.extend(id, ttl);
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("ok", true);
            body.put("sandbox", SandboxViews.record(next, clock.instant(), plugin.manager()));
            return ToolResult.ok(body, "sandbox " + id + " now expires " + next.expires())
                    .auditedByCore();
        } catch (BadRequest | Sandboxes.NotFound | Sandboxes.Conflict e) {
            // Well-formed but not allowed (past the max lifetime, no longer live): the agent can correct it.
            return ToolResult.failed(Gate.failure("refused", e.getMessage(), false), "refused: " + e.getMessage());
        }
    }

    private ToolResult delete(ToolCall call) throws InterruptedException {
        String id = call.sandbox().id();
        Sandboxes.Deletion deletion = sandboxes.delete(id, "deleted by an operator over MCP");
        if (deletion == Sandboxes.Deletion.OTHER_INSTANCE || deletion == Sandboxes.Deletion.NOT_FOUND) {
            String reason = deletion == Sandboxes.Deletion.NOT_FOUND
                    ? "no sandbox '" + id + "'"
                    : "sandbox " + id + " belongs to another server instance; delete it through that server";
            return ToolResult.failed(Gate.failure("refused", reason, false), reason);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", true);
        body.put("id", id);
        body.put("deleted", deletion == Sandboxes.Deletion.DELETED);
        body.put("state", "deleted");
        ToolResult result = ToolResult.ok(body, "sandbox " + id + " deleted");
        return deletion == Sandboxes.Deletion.DELETED ? result.auditedByCore() : result;
    }

    private ToolResult cleanup(ToolCall call) throws InterruptedException {
        boolean dryRun = !Boolean.FALSE.equals(call.arguments().get("dry_run"));
        String owner = call.string("owner");
        Instant now = clock.instant();
        List<Map<String, Object>> expired = new ArrayList<>();
        for (SandboxRecord r : sandboxes.expired(owner)) {
            expired.add(SandboxViews.record(r, now, plugin.manager()));
        }
        List<String> removed = dryRun ? List.of() : sandboxes.removeExpired(owner, Sandboxes.CLEANUP_VERB);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", true);
        body.put("dry_run", dryRun);
        body.put("expired", expired);
        body.put("removed", removed);
        return ToolResult.ok(
                body,
                expired.size() + " expired sandbox(es)"
                        + (dryRun ? " (dry run: nothing removed)" : "; removed " + removed));
    }
}
