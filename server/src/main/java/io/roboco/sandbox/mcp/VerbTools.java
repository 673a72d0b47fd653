package io.roboco.sandbox.mcp;

import io.roboco.sandbox.guard.AgentOperation;
import io.roboco.sandbox.plugin.SandboxDecision;
import io.roboco.sandbox.plugin.SandboxService;
import io.roboco.sandbox.request.SandboxName;
import io.roboco.sandbox.request.ServiceName;
import io.roboco.sandbox.request.TemplateName;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.verbs.AgentVerbs;
import io.roboco.sandbox.verbs.Envelope;
import io.roboco.sandbox.verbs.VerbNames;
import io.roboco.sandbox.views.SandboxViews;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code request_sandbox} and {@code release_sandbox} as MCP tools: the agent's own verbs, asked of the core's
 * {@link SandboxService} as the HTTP verbs ask it (arguments parsed by the verbs' parser, {@link AgentVerbs#ensureAsk}),
 * so the role check, the guard chain, the cache and the audit record are the ones the HTTP API has. The structured
 * answer is the verb's envelope, byte for byte the HTTP API's JSON; the text is rendered from the typed outcome.
 *
 * <p>They also carry the lifecycle's create and delete for the agent (one pair of tools instead of two keeps the
 * list short): {@code request_sandbox} with a {@code name} asks the same front door for the caller's sandbox of that
 * name (the core answers the live one again or creates it), {@code release_sandbox} with a {@code sandbox} id removes
 * that one (the core's release ends the sandbox it names, whatever its kind).
 */
final class VerbTools {
    private final SandboxService service;

    VerbTools(SandboxService service) {
        this.service = service;
    }

    List<ToolSpec> specs() {
        Map<String, Object> service = McpTools.string("a service (engine) name, e.g. postgres", ServiceName.SHAPE);
        Map<String, Object> extensionsOf = McpTools.arrayOf(
                McpTools.string("an extension or module name", null, 64),
                "per-call features for this service, from the engine's allowlist",
                16);
        Map<String, Object> extensions = new LinkedHashMap<>();
        extensions.put("type", "object");
        extensions.put(
                "description",
                "service → extensions/modules to activate on top of the project's standing set,"
                        + " e.g. {\"postgres\":[\"pg_trgm\"]}");
        extensions.put("propertyNames", Map.of("pattern", ServiceName.SHAPE.jsonPattern()));
        extensions.put("additionalProperties", extensionsOf);
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put(
                "services",
                McpTools.arrayOf(
                        service,
                        "the services you need now (default: all the project opted into);"
                                + " the whole set is provisioned on the first call either way",
                        8));
        properties.put("extensions", extensions);
        Map<String, Object> labels = new LinkedHashMap<>();
        labels.put("type", "object");
        labels.put("description", "labels to find it by later, e.g. {\"purpose\":\"migration-test\"} (at most 16)");
        labels.put("additionalProperties", Map.of("type", "string"));
        properties.put("labels", labels);
        properties.put(
                "name",
                McpTools.string(
                        "a name of your choosing for a NAMED sandbox besides your task's own (its own TTL,"
                                + " within your quota); asking again with the same name answers the same sandbox",
                        SandboxName.NAMED));
        properties.put(
                "ttl", McpTools.string("a named sandbox's lifetime, e.g. 2h (default: the project's)", null, 16));
        properties.put(
                "template",
                McpTools.string(
                        "a template of your project (saved with save_template; list_templates lists them) that the"
                                + " NEW sandbox's Postgres starts from, instead of the project's seed",
                        TemplateName.SHAPE));
        properties.put(Gate.IDEMPOTENCY_ARGUMENT, McpTools.idempotencyKey());
        Map<String, Object> releaseArgs = McpTools.object(
                Map.of(
                        "sandbox",
                        SandboxTools.sandboxArgument(
                                "a sandbox id of yours (list_sandboxes) to remove; default: your request_sandbox set")),
                List.of());
        return List.of(
                new ToolSpec(
                        VerbNames.REQUEST_SANDBOX,
                        "Request a sandbox",
                        "Get throwaway, isolated databases for your current task (the project's opted-in Postgres / Redis /"
                                + " Mongo). Answers ready-to-export credentials (ROBOCO_TEST_* env) in the same call; asking"
                                + " again returns the same sandbox. With 'name': a separate named sandbox of yours (create).",
                        McpTools.object(properties, List.of()),
                        false,
                        false,
                        true,
                        ToolSpec.Audience.AGENT,
                        ToolSpec.Scope.CALLER,
                        this::request,
                        AgentOperation.REQUEST),
                new ToolSpec(
                        VerbNames.RELEASE_SANDBOX,
                        "Release your sandbox",
                        "Tear your sandbox down now: its containers and data are removed. The next request_sandbox makes a new one."
                                + " With 'sandbox': that sandbox of yours (delete).",
                        releaseArgs,
                        false,
                        true,
                        true,
                        ToolSpec.Audience.AGENT,
                        ToolSpec.Scope.CALLER,
                        this::release,
                        AgentOperation.RELEASE));
    }

    /**
     * One ask of the core, whatever the name: the typed outcome rendered as the verb's envelope, or for a sandbox
     * answered with its record (a named one) as {@code POST /api/sandboxes} answers.
     */
    private ToolResult request(ToolCall call) throws InterruptedException {
        SandboxDecision decision = service.ensure(AgentVerbs.ensureAsk(call.agent(), call.arguments()));
        Envelope envelope = Envelope.of(decision);
        if (!(decision instanceof SandboxDecision.Granted granted)) {
            return failure(envelope).auditedByCore();
        }
        List<String> services =
                granted.sandboxes().stream().map(SandboxDecision.Grant::service).toList();
        if (granted.record() != null) {
            return created(granted).withServices(services).auditedByCore();
        }
        StringBuilder text = new StringBuilder("sandbox ready: ")
                .append(String.join(", ", services))
                .append(". Export these (also in structuredContent.evidence):");
        append(text, granted.sandboxes());
        return ToolResult.ok(envelope.asMap(), text.toString())
                .withServices(services)
                .auditedByCore();
    }

    /** The answer of {@code POST /api/sandboxes}: {@code {"ok":true,"sandbox":{…, "services":[{service, env}]}}}. */
    private static ToolResult created(SandboxDecision.Granted granted) {
        SandboxRecord record = granted.record();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", true);
        body.put("sandbox", SandboxViews.created(record, granted.sandboxes()));
        StringBuilder text = new StringBuilder(
                (granted.cacheHit() ? "the same named sandbox as before " : "a new named sandbox ") + record.id() + " '"
                        + record.name() + "', expires " + record.expires()
                        + ". Export these (also in structuredContent.sandbox.services):");
        append(text, granted.sandboxes());
        return ToolResult.ok(body, text.toString());
    }

    private static void append(StringBuilder text, List<SandboxDecision.Grant> grants) {
        for (SandboxDecision.Grant grant : grants) {
            new TreeMap<>(grant.env())
                    .forEach((k, v) -> text.append('\n').append(k).append('=').append(v));
        }
    }

    private ToolResult release(ToolCall call) {
        String named = call.sandbox() == null ? null : call.sandbox().id();
        SandboxService.ReleaseOutcome outcome = service.release(SandboxService.Release.byAgent(call.agent(), named));
        if (outcome instanceof SandboxService.ReleaseOutcome.Ended ended) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("ok", true);
            body.put("id", ended.id());
            body.put("deleted", ended.deleted());
            body.put("state", "deleted");
            ToolResult result = ToolResult.ok(body, "sandbox " + ended.id() + " released");
            return ended.deleted() ? result.auditedByCore() : result;
        }
        Envelope envelope = Envelope.of(outcome);
        if (!envelope.ok()) {
            return failure(envelope).auditedByCore();
        }
        return ToolResult.ok(envelope.asMap(), "sandbox released: " + outcome.removed() + " container(s) removed")
                .auditedByCore();
    }

    private static ToolResult failure(Envelope envelope) {
        Map<String, Object> body = envelope.asMap();
        String reason = envelope.error() + ": " + body.get("reason")
                + (Boolean.TRUE.equals(body.get("retryable")) ? " (retryable: try again shortly)" : "");
        return ToolResult.failed(body, reason);
    }
}
