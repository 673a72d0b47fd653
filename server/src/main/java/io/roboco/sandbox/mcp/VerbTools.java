package io.roboco.sandbox.mcp;

import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.verbs.AgentVerbs;
import io.roboco.sandbox.verbs.Envelope;
import io.roboco.sandbox.verbs.VerbNames;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code request_sandbox} and {@code release_sandbox} as MCP tools: the agent's own verbs, called through
 * {@link AgentVerbs}, so the role check, the guard chain, the cache and the verb's audit record are the
 * ones the HTTP API has. The structured answer is the verb's envelope, byte for byte the HTTP API's JSON.
 */
final class VerbTools {
    private static final String SERVICE = "^" + Names.SERVICE.pattern() + "$";

    private final AgentVerbs verbs;

    VerbTools(AgentVerbs verbs) {
        this.verbs = verbs;
    }

    List<ToolSpec> specs() {
        Map<String, Object> service = McpTools.string("a service (engine) name, e.g. postgres", SERVICE, 32);
        Map<String, Object> extensionsOf = McpTools.arrayOf(McpTools.string("an extension or module name", null, 64),
                "per-call features for this service, from the engine's allowlist", 16);
        Map<String, Object> extensions = new java.util.LinkedHashMap<>();
        extensions.put("type", "object");
        extensions.put("description", "service → extensions/modules to activate on top of the project's standing set,"
                + " e.g. {\"postgres\":[\"pg_trgm\"]}");
        extensions.put("propertyNames", Map.of("pattern", SERVICE));
        extensions.put("additionalProperties", extensionsOf);
        Map<String, Object> properties = new java.util.LinkedHashMap<>();
        properties.put("services", McpTools.arrayOf(service, "the services you need now (default: all the project opted into);"
                + " the whole set is provisioned on the first call either way", 8));
        properties.put("extensions", extensions);
        return List.of(
                new ToolSpec(VerbNames.REQUEST_SANDBOX, "Request a sandbox",
                        "Get throwaway, isolated databases for your current task (the project's opted-in Postgres / Redis /"
                                + " Mongo). Answers ready-to-export credentials (ROBOCO_TEST_* env) in the same call; asking"
                                + " again returns the same sandbox.",
                        McpTools.object(properties, List.of()), false, false, true, ToolSpec.Audience.AGENT, ToolSpec.Scope.CALLER, this::request),
                new ToolSpec(VerbNames.RELEASE_SANDBOX, "Release your sandbox",
                        "Tear your sandbox down now: its containers and data are removed. The next request_sandbox makes a new one.",
                        McpTools.noArguments(), false, true, true, ToolSpec.Audience.AGENT, ToolSpec.Scope.CALLER, this::release));
    }

    private ToolResult request(ToolCall call) throws InterruptedException {
        Envelope envelope = verbs.call(call.agent(), VerbNames.REQUEST_SANDBOX, call.arguments());
        if (!envelope.ok()) {
            return failure(envelope);
        }
        List<String> services = new ArrayList<>();
        StringBuilder text = new StringBuilder("sandbox ready");
        for (Object s : sandboxes(envelope)) {
            Map<?, ?> sandbox = (Map<?, ?>) s;
            services.add(String.valueOf(sandbox.get("service")));
        }
        text.append(": ").append(String.join(", ", services)).append(". Export these (also in structuredContent.evidence):");
        for (Object s : sandboxes(envelope)) {
            Map<?, ?> env = (Map<?, ?>) ((Map<?, ?>) s).get("env");
            new TreeMap<>(env).forEach((k, v) -> text.append('\n').append(k).append('=').append(v));
        }
        return ToolResult.ok(envelope.asMap(), text.toString()).withServices(services);
    }

    private ToolResult release(ToolCall call) throws InterruptedException {
        Envelope envelope = verbs.call(call.agent(), VerbNames.RELEASE_SANDBOX, Map.of());
        if (!envelope.ok()) {
            return failure(envelope);
        }
        Object removed = ((Map<?, ?>) envelope.asMap().get("evidence")).get("removed");
        return ToolResult.ok(envelope.asMap(), "sandbox released: " + removed + " container(s) removed");
    }

    private static ToolResult failure(Envelope envelope) {
        Map<String, Object> body = envelope.asMap();
        String reason = envelope.error() + ": " + body.get("reason")
                + (Boolean.TRUE.equals(body.get("retryable")) ? " (retryable: try again shortly)" : "");
        return ToolResult.failed(body, reason);
    }

    private static List<?> sandboxes(Envelope envelope) {
        return (List<?>) ((Map<?, ?>) envelope.asMap().get("evidence")).get("sandboxes");
    }
}
