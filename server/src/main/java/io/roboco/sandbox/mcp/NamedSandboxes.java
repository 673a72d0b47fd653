package io.roboco.sandbox.mcp;

import io.roboco.sandbox.plugin.SandboxDecision;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.DurationText;
import io.roboco.sandbox.request.Labels;
import io.roboco.sandbox.request.ServiceName;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.AgentStore;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;
import io.roboco.sandbox.verbs.Envelope;
import io.roboco.sandbox.views.SandboxViews;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An agent's named sandboxes through MCP: created with the agent as owner, in its project, within its quotas
 * ({@link Sandboxes#create}: the same guards, quota and capacity step and audit as {@code POST /api/sandboxes});
 * removed by the core's release ({@code SandboxService#release} of the sandbox the call names). Asking again for a name that is live answers the same sandbox and
 * credentials, as the verb does, from the core's registry of live sandboxes ({@link Sandboxes#heldGrants}: made
 * since the start over MCP or HTTP, or re-adopted after a restart); this class keeps no credentials of its own.
 */
final class NamedSandboxes {
    private final Sandboxes sandboxes;
    private final AgentStore agents;
    private final Clock clock;

    NamedSandboxes(Sandboxes sandboxes, AgentStore agents, Clock clock) {
        this.sandboxes = sandboxes;
        this.agents = agents;
        this.clock = clock;
    }

    ToolResult request(ToolCall call) throws InterruptedException {
        String slug = call.agent();
        String name = call.string("name");
        Map<String, Object> args = call.arguments();
        Duration ttl = args.get("ttl") == null ? null : DurationText.require("ttl", args.get("ttl"));
        Map<String, String> labels = args.get("labels") == null ? Map.of() : Labels.parse("labels", args.get("labels"));
        Optional<Agent> agent = agents.findAgent(slug);
        if (agent.isEmpty() || agent.get().project() == null) {
            String reason = "you are not bound to a project; the orchestrator spawns you with one (POST /api/agents/"
                    + slug + "/spawn)";
            return ToolResult.failed(Envelope.refused(reason, false).asMap(), "refused: " + reason);
        }
        Optional<SandboxRecord> existing = sandboxes
                .list(new SandboxQuery(slug, null, Map.of(), EnumSet.of(SandboxState.LIVE), null, clock.instant()))
                .stream()
                .filter(r -> r.name().equals(name))
                .findFirst();
        if (existing.isPresent()) {
            // The core's registry of live sandboxes holds it: made since the start (MCP or HTTP), or re-adopted after a
            // restart.
            List<SandboxDecision.Grant> held =
                    sandboxes.heldGrants(existing.get().id()).orElse(null);
            if (held == null) {
                String reason = "your sandbox named '" + name + "' ("
                        + existing.get().id() + ") exists, but its credentials were answered"
                        + " only when it was created and this server no longer holds them; release it (release_sandbox with sandbox="
                        + existing.get().id() + ") and request it again, or pick another name";
                return ToolResult.failed(Envelope.refused(reason, false).asMap(), "refused: " + reason);
            }
            return answer(existing.get(), held, "the same named sandbox as before");
        }
        List<String> services = new ArrayList<>();
        if (args.get("services") instanceof List<?> list) {
            list.forEach(s -> services.add(ServiceName.parse(String.valueOf(s)).value()));
        }
        Map<String, List<String>> extensions = new LinkedHashMap<>();
        if (args.get("extensions") instanceof Map<?, ?> map) {
            map.forEach((k, v) -> extensions.put(
                    ServiceName.parse(String.valueOf(k)).value(),
                    ((List<?>) v).stream().map(String::valueOf).toList()));
        }
        Sandboxes.CreateOutcome outcome;
        try {
            outcome = sandboxes.createForAgent(new Sandboxes.CreateRequest(
                    slug, agent.get().project(), services, extensions, name, ttl, labels, call.string("template")));
        } catch (BadRequest e) {
            // Well-formed but over a limit (a ttl past the project's max): a tool error the agent can correct.
            return ToolResult.failed(Envelope.refused(e.getMessage(), false).asMap(), "refused: " + e.getMessage());
        }
        if (outcome instanceof Sandboxes.CreateOutcome.Created created) {
            return answer(created.record(), created.services(), "a new named sandbox")
                    .auditedByCore();
        }
        Envelope envelope = Envelope.of(((Sandboxes.CreateOutcome.NotCreated) outcome).decision());
        Map<String, Object> body = envelope.asMap();
        return ToolResult.failed(
                        body,
                        envelope.error() + ": " + body.get("reason")
                                + (Boolean.TRUE.equals(body.get("retryable")) ? " (retryable: try again shortly)" : ""))
                .auditedByCore();
    }

    /** The answer of {@code POST /api/sandboxes}: {@code {"ok":true,"sandbox":{…, "services":[{service, env}]}}}. */
    private static ToolResult answer(SandboxRecord record, List<SandboxDecision.Grant> grants, String what) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", true);
        body.put("sandbox", SandboxViews.created(record, grants));
        StringBuilder text = new StringBuilder(what + " " + record.id() + " '" + record.name() + "', expires "
                + record.expires() + ". Export these (also in structuredContent.sandbox.services):");
        for (SandboxDecision.Grant g : grants) {
            new TreeMap<>(g.env())
                    .forEach((k, v) -> text.append('\n').append(k).append('=').append(v));
        }
        return ToolResult.ok(body, text.toString())
                .withServices(
                        grants.stream().map(SandboxDecision.Grant::service).toList());
    }
}
