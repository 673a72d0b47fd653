package io.roboco.sandbox.mcp;

import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.guard.AgentOperation;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.request.SnapshotName;
import io.roboco.sandbox.request.TemplateName;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.template.DirectoryTemplateStore;
import io.roboco.sandbox.verbs.AgentVerbs;
import io.roboco.sandbox.verbs.Envelope;
import io.roboco.sandbox.verbs.VerbNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The data verbs as MCP tools ({@code snapshot_schema}, {@code diff_schema}, {@code checkpoint_sandbox},
 * {@code rewind_sandbox}, {@code diff_data}, {@code save_template}) on the caller's own sandbox (its verb set, or one of its named
 * sandboxes given as {@code sandbox}), through {@link AgentVerbs}: the same role check, audit and envelope as the HTTP
 * verbs; and {@code list_templates}, the templates of the caller's project (the ones its {@code request_sandbox} can
 * start from).
 */
final class DataTools {
    private final AgentVerbs verbs;
    private final SandboxPlugin plugin;

    DataTools(AgentVerbs verbs, SandboxPlugin plugin) {
        this.verbs = verbs;
        this.plugin = plugin;
    }

    List<ToolSpec> specs() {
        Map<String, Object> sandbox = SandboxTools.sandboxArgument(
                "a sandbox id of yours (list_sandboxes), e.g. a named one; default: your request_sandbox set");
        Map<String, Object> snapshotName = McpTools.object(
                Map.of(
                        "name",
                        McpTools.string("snapshot name: lower-case letters, digits, '_' or '-'", SnapshotName.SHAPE),
                        "sandbox",
                        sandbox),
                List.of("name"));
        Map<String, Object> checkpointName = McpTools.object(
                Map.of(
                        "name",
                        McpTools.string(
                                "checkpoint name: lower-case letters, digits, '_' or '-'", CheckpointName.SHAPE),
                        "sandbox",
                        sandbox),
                List.of("name"));
        Map<String, Object> keyedCheckpoint = McpTools.object(
                Map.of(
                        "name",
                        McpTools.string(
                                "checkpoint name: lower-case letters, digits, '_' or '-'", CheckpointName.SHAPE),
                        "sandbox",
                        sandbox,
                        Gate.IDEMPOTENCY_ARGUMENT,
                        McpTools.idempotencyKey()),
                List.of("name"));
        Map<String, Object> checkpointToDiff = McpTools.object(
                Map.of(
                        "checkpoint",
                        McpTools.string("the checkpoint to compare with", CheckpointName.SHAPE),
                        "sandbox",
                        sandbox),
                List.of("checkpoint"));
        Map<String, Object> templateName = McpTools.object(
                Map.of(
                        "name",
                        McpTools.string("template name: lower-case letters, digits, '_' or '-'", TemplateName.SHAPE),
                        "sandbox",
                        sandbox,
                        "replace",
                        Map.of("type", "boolean", "description", "replace a template of that name (default: refuse)")),
                List.of("name"));
        return List.of(
                new ToolSpec(
                        VerbNames.SNAPSHOT_SCHEMA,
                        "Snapshot your schema",
                        "Record your Postgres sandbox's schema now under a name (digest version, Postgres version, object counts,"
                                + " per-object fingerprints). An explicit before-state for diff_schema, e.g. before a migration.",
                        snapshotName,
                        false,
                        false,
                        true,
                        ToolSpec.Audience.AGENT,
                        ToolSpec.Scope.CALLER,
                        call -> run(call, VerbNames.SNAPSHOT_SCHEMA),
                        AgentOperation.SNAPSHOT_SCHEMA),
                new ToolSpec(
                        VerbNames.DIFF_SCHEMA,
                        "Diff your schema against a snapshot",
                        "What changed in your Postgres schema since the named snapshot: objects added, removed, and changed"
                                + " with what changed (e.g. a column's type or nullability). Empty when nothing changed.",
                        snapshotName,
                        true,
                        false,
                        true,
                        ToolSpec.Audience.AGENT,
                        ToolSpec.Scope.CALLER,
                        call -> run(call, VerbNames.DIFF_SCHEMA),
                        AgentOperation.DIFF_SCHEMA),
                new ToolSpec(
                        VerbNames.CHECKPOINT_SANDBOX,
                        "Checkpoint your sandbox",
                        "Copy the data of every service of your sandbox (Postgres, Redis, Mongo) as one named checkpoint before"
                                + " something risky. Closes your open Postgres sessions for the copy (reconnect with the same URL).",
                        keyedCheckpoint,
                        false,
                        false,
                        true,
                        ToolSpec.Audience.AGENT,
                        ToolSpec.Scope.CALLER,
                        call -> run(call, VerbNames.CHECKPOINT_SANDBOX),
                        AgentOperation.CHECKPOINT),
                new ToolSpec(
                        VerbNames.DIFF_DATA,
                        "Diff your data against a checkpoint",
                        "What changed since a checkpoint_sandbox checkpoint, per service: rows inserted, updated, deleted"
                                + " by primary key (no key: whole rows), Redis keys, Mongo documents by _id. Full counts,"
                                + " capped samples.",
                        checkpointToDiff,
                        true,
                        false,
                        true,
                        ToolSpec.Audience.AGENT,
                        ToolSpec.Scope.CALLER,
                        call -> run(call, VerbNames.DIFF_DATA),
                        AgentOperation.DIFF_DATA),
                new ToolSpec(
                        VerbNames.SAVE_TEMPLATE,
                        "Save your database as a template",
                        "Keep a dump of your Postgres database on the server under a name (schema and rows, no owners or grants)."
                                + " It outlives this sandbox: request_sandbox(template=name) starts a new one from it, on the same"
                                + " PostgreSQL major or newer. The answer lists your project's templates.",
                        templateName,
                        false,
                        false,
                        false,
                        ToolSpec.Audience.AGENT,
                        ToolSpec.Scope.CALLER,
                        call -> run(call, VerbNames.SAVE_TEMPLATE),
                        AgentOperation.SAVE_TEMPLATE),
                new ToolSpec(
                        "list_templates",
                        "List your project's templates",
                        "The templates your project's sandboxes can start from (request_sandbox(template=name)): name, PostgreSQL"
                                + " major, size, created, schema digest, the sandbox it was saved from.",
                        McpTools.noArguments(),
                        true,
                        false,
                        true,
                        ToolSpec.Audience.AGENT,
                        ToolSpec.Scope.CALLER,
                        this::listTemplates,
                        AgentOperation.LIST_TEMPLATES),
                new ToolSpec(
                        VerbNames.REWIND_SANDBOX,
                        "Rewind your sandbox to a checkpoint",
                        "Put the named checkpoint's data back in every service at once (or in none, the answer says so): the"
                                + " same URLs and credentials then hold the data as it was. Everything since the checkpoint is lost;"
                                + " your open Postgres sessions are closed.",
                        checkpointName,
                        false,
                        true,
                        true,
                        ToolSpec.Audience.AGENT,
                        ToolSpec.Scope.CALLER,
                        call -> run(call, VerbNames.REWIND_SANDBOX),
                        AgentOperation.REWIND));
    }

    /** The templates of the caller's project, as {@code GET /api/templates} answers them (metadata, never content). */
    private ToolResult listTemplates(ToolCall call) {
        Optional<Agent> agent = plugin.store().findAgent(call.agent());
        if (agent.isEmpty()) {
            return ToolResult.failed(
                    Map.of(
                            "ok",
                            false,
                            "error",
                            "refused",
                            "reason",
                            "agent '" + call.agent() + "' is not spawned; "
                                    + "the orchestrator spawns it with a project",
                            "retryable",
                            false),
                    "refused: you are not a spawned agent");
        }
        String project = agent.get().project();
        List<Map<String, Object>> templates = plugin.templates().list(project).stream()
                .map(DirectoryTemplateStore::toJson)
                .toList();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("project", project);
        body.put("templates", templates);
        String text = templates.isEmpty()
                ? "project '" + project + "' has no templates yet (save_template makes one)"
                : templates.size() + " template(s) of project '" + project + "': "
                        + String.join(
                                ", ",
                                templates.stream()
                                        .map(t -> t.get("name") + " (PostgreSQL " + t.get("major") + ", "
                                                + t.get("size_bytes") + " bytes)")
                                        .toList());
        return ToolResult.ok(body, text);
    }

    private ToolResult run(ToolCall call, String verb) throws InterruptedException {
        return run(call, verb, call.arguments());
    }

    private ToolResult run(ToolCall call, String verb, Map<String, Object> arguments) throws InterruptedException {
        // The gate resolved a 'sandbox' argument among the caller's own (of either kind); without one it is the
        // caller's verb set.
        Map<String, Object> args = new LinkedHashMap<>(arguments);
        args.remove("sandbox");
        Envelope envelope = call.sandbox() == null
                ? verbs.call(call.agent(), verb, args)
                : verbs.callOn(call.agent(), call.sandbox().id(), verb, args);
        Map<String, Object> body = envelope.asMap();
        if (!envelope.ok()) {
            return ToolResult.failed(
                    body,
                    envelope.error() + ": " + body.get("reason")
                            + (Boolean.TRUE.equals(body.get("retryable")) ? " (retryable: try again shortly)" : ""));
        }
        Map<?, ?> evidence = (Map<?, ?>) body.get("evidence");
        String text = switch (verb) {
            case VerbNames.SNAPSHOT_SCHEMA ->
                "snapshot '" + evidence.get("name") + "' taken: " + evidence.get("counts");
            case VerbNames.DIFF_SCHEMA ->
                Boolean.TRUE.equals(evidence.get("empty"))
                        ? "no change since snapshot '" + evidence.get("name") + "'"
                        : "since snapshot '" + evidence.get("name") + "': added " + evidence.get("added") + ", removed "
                                + evidence.get("removed") + ", changed " + evidence.get("changed");
            case VerbNames.CHECKPOINT_SANDBOX ->
                "checkpoint '" + evidence.get("name") + "' made; " + evidence.get("note");
            case VerbNames.DIFF_DATA -> DataDiffText.of(evidence);
            case VerbNames.SAVE_TEMPLATE ->
                "template '" + evidence.get("name") + "' saved (" + evidence.get("size_bytes") + " bytes, PostgreSQL "
                        + evidence.get("major") + "); your project's templates: " + evidence.get("templates") + "; "
                        + evidence.get("note");
            default -> "rewound to checkpoint '" + evidence.get("name") + "'; " + evidence.get("note");
        };
        return ToolResult.ok(body, text);
    }
}
