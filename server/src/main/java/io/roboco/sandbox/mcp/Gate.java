package io.roboco.sandbox.mcp;

import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.roboco.sandbox.idempotency.IdempotentCalls;
import io.roboco.sandbox.inspect.InspectionPolicy;
import io.roboco.sandbox.limits.FairShare;
import io.roboco.sandbox.plugin.GuardChain;
import io.roboco.sandbox.progress.ProgressTicker;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.IdempotencyKey;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.AgentStore;
import io.roboco.sandbox.settings.AuditTrail;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one choke point every MCP tool call passes, allowed or denied (pgscout's Gate): it finds the tool
 * the caller may see, validates the arguments against the tool's JSON Schema, hands the handler the
 * caller's scope and the policy (row cap), turns the outcome into an MCP result, and writes one audit
 * record (tool, decision, reason, duration; SQL truncated; never a credential).
 *
 * <p>"Tool errors are results, protocol errors are errors": an unknown tool or malformed arguments
 * throw {@link McpError} (JSON-RPC {@code -32602}); a refusal or {@code invalid_state} is a result with
 * {@code isError: true} and the reason, so the agent can correct itself.
 *
 * <p>Toolsets: an agent sees and may call only the tools of its token's {@link Toolset}s; a call to another agent
 * tool is a tool error naming the toolset that has it (before anything else runs), never a silent "unknown tool".
 *
 * <p>Guards: an agent's call first passes the plugin's {@link GuardChain} for the tool's operation (role, and for what
 * reaches a sandbox the flag, an active task and the project's opt-in), the same chain the HTTP verbs pass; a refusal
 * is a tool error and the handler never runs.
 *
 * <p>Scope: a tool that acts on a sandbox gets the caller's own, resolved here ({@link SandboxScope}); a caller
 * without one gets a tool error and the handler never runs. Policy: the inspection policy with the gate's row cap.
 *
 * <p>Fair share: an agent's call is admitted only within its token's share ({@link FairShare}: calls under way, calls per
 * minute); over it the call is a retryable tool error ({@code "error":"refused","retryable":true} with
 * {@code retry_after_seconds}) before anything else runs. Such refusals are audited at most once per agent a minute,
 * so a flood cannot grow the audit trail. The operator is not limited.
 *
 * <p>Idempotency keys: a call carrying {@code idempotency_key} (request_sandbox, checkpoint_sandbox) runs once per key of
 * the agent ({@link IdempotentCalls}); a retry with the same key and arguments gets the first result (with
 * {@code _meta} {@value #REPLAYED_META}), while the first still runs it waits for it, and the same key with other
 * arguments is a tool error {@code idempotency_conflict}.
 *
 * <p>Audit decisions: {@code allowed} (the tool answered), {@code tool_error} (it answered a refusal or
 * {@code invalid_state}), {@code denied} (the gate found nothing of the caller's to act on), {@code invalid}
 * (unknown tool or malformed arguments), {@code fault} (a bug or an outage; the reason names the exception
 * class only).
 */
public final class Gate {
    private static final Logger log = LoggerFactory.getLogger(Gate.class);
    static final int MAX_REASON = 300;
    static final int MAX_SQL = 200;

    private final Map<String, ToolSpec> tools = new LinkedHashMap<>();
    private final JsonSchemaValidator validator;
    private final AuditTrail audit;
    private final AgentStore agents;
    private final GuardChain guards;
    private final SandboxScope scope;
    private final InspectionPolicy policy;
    private final FairShare share;
    private final IdempotentCalls<ToolResult> keys;
    private final ProgressTicker ticker;
    private final Function<String, Optional<String>> progressDetail;
    private final Map<String, Instant> refusalAudited = new ConcurrentHashMap<>();
    private final Clock clock;

    /**
     * Finds the sandbox a call acts on: {@code sandboxId} null for the caller's own verb set, else a live sandbox the
     * caller owns (the operator: any live one). Empty when there is none or it is not the caller's: one answer for both.
     */
    @FunctionalInterface
    public interface SandboxScope {
        Optional<ScopedSandbox> resolve(Caller caller, String sandboxId);
    }

    /** The argument naming a sandbox, on every tool that takes one. */
    public static final String SANDBOX_ARGUMENT = "sandbox";

    /** The idempotency key argument, on the tools that make something (request_sandbox, checkpoint_sandbox). */
    public static final String IDEMPOTENCY_ARGUMENT = "idempotency_key";

    /** The {@code _meta} key of a result that replays an earlier call's (same idempotency key). */
    static final String REPLAYED_META = "io.roboco/idempotent_replayed";

    /**
     * @param inspection what the inspection tools allow ({@code ROBOCO_SANDBOX_MCP_ROW_CAP} its row limit,
     *                   {@code ROBOCO_SANDBOX_MCP_FETCH_BYTES} its fetch budget)
     */
    public Gate(
            List<ToolSpec> specs,
            JsonSchemaValidator validator,
            AuditTrail audit,
            AgentStore agents,
            GuardChain guards,
            SandboxScope scope,
            InspectionPolicy inspection,
            FairShare share,
            IdempotentCalls<ToolResult> keys,
            ProgressTicker ticker,
            Function<String, Optional<String>> progressDetail,
            Clock clock) {
        for (ToolSpec spec : specs) {
            if (tools.putIfAbsent(spec.name(), spec) != null) {
                throw new IllegalArgumentException("two tools named " + spec.name());
            }
            McpSchema.Tool checked = McpTools.describe(spec);
            JsonSchemaValidator.ValidationResponse schema = validator.validateSchema(checked.inputSchema());
            if (!schema.valid()) {
                throw new IllegalArgumentException(
                        "tool " + spec.name() + " has an invalid input schema: " + schema.errorMessage());
            }
        }
        Toolset.check(tools);
        this.validator = validator;
        this.audit = audit;
        this.agents = agents;
        this.guards = guards;
        this.scope = scope;
        this.policy = inspection;
        this.share = share;
        this.keys = keys;
        this.ticker = ticker;
        this.progressDetail = progressDetail;
        this.clock = clock;
    }

    public List<ToolSpec> tools() {
        return List.copyOf(tools.values());
    }

    /** Whether a tool of this name exists (for any caller). */
    public boolean has(String tool) {
        return tools.containsKey(tool);
    }

    /** Records a call of a name no tool has; the SDK answers it (JSON-RPC -32602) before any handler could. */
    void unknownTool(Caller caller, String name) {
        record(
                caller,
                "mcp:" + Names.printable(name),
                "invalid",
                "unknown tool",
                Map.of(),
                List.of(),
                System.nanoTime());
    }

    /**
     * Whether {@code caller} sees the tool in {@code tools/list}: the operator its tools; an agent the tools of its
     * token's toolsets that its role may call (a reviewer's token lists no sandbox tool, whatever its toolsets).
     */
    public boolean visible(Caller caller, String tool) {
        ToolSpec spec = tools.get(tool);
        if (spec == null || !spec.audience().admits(caller)) {
            return false;
        }
        if (!(caller instanceof Caller.Agent agent)) {
            return true;
        }
        if (!opens(agent, tool)) {
            return false;
        }
        try {
            return agents.findAgent(agent.slug())
                    .map(a -> guards.roles().carries(a.role(), spec.operation().verb()))
                    .orElse(true);
        } catch (RuntimeException e) {
            return true; // the call itself passes the guard chain, which answers the outage
        }
    }

    private static boolean opens(Caller.Agent agent, String tool) {
        return Toolset.of(tool).map(agent.toolsets()::contains).orElse(false);
    }

    /** The refusal of a call to a tool outside the token's toolsets: which toolset has it, and how to get it. */
    private McpSchema.CallToolResult outsideToolsets(
            Caller.Agent agent, String name, Map<String, Object> args, long start) {
        Toolset home = Toolset.of(name).orElseThrow();
        List<String> has = Toolset.ids(agent.toolsets());
        List<String> wanted = new ArrayList<>(has);
        wanted.add(home.id());
        String reason = name + " is in the MCP toolset '" + home.id() + "', which this token was not minted for (it"
                + " opens: " + String.join(", ", has) + "); the orchestrator mints a token with it: POST /api/agents/"
                + agent.slug() + "/token {\"toolsets\":["
                + String.join(",", wanted.stream().map(id -> "\"" + id + "\"").toList())
                + "]}";
        record(agent, "mcp:" + name, "denied", reason, args, List.of(), start);
        Map<String, Object> body = failure("refused", reason, false);
        body.put("toolset", home.id());
        return McpSchema.CallToolResult.builder()
                .addTextContent("refused: " + reason)
                .structuredContent(body)
                .isError(true)
                .build();
    }

    /** One call, start to audit. Throws {@link McpError} for protocol errors (after auditing them). */
    public McpSchema.CallToolResult call(Caller caller, String name, Map<String, Object> arguments) {
        return call(caller, name, arguments, null);
    }

    /**
     * One call; {@code progress} (null: the client asked for none) gets a tick every second while the tool runs past
     * its first second, saying what runs and, for a template restore or save, how far it has got.
     */
    public McpSchema.CallToolResult call(
            Caller caller, String name, Map<String, Object> arguments, ProgressTicker.Sink progress) {
        long start = System.nanoTime();
        Map<String, Object> args = arguments == null ? Map.of() : arguments;
        if (!(caller instanceof Caller.Agent agent)) {
            return admitted(caller, name, args, start, progress);
        }
        FairShare.Admission admission = share.tryAcquire(agent.slug());
        if (admission.refusal().isPresent()) {
            return overShare(caller, name, args, admission.refusal().get(), start);
        }
        try (FairShare.Permit ignored = admission.permit().orElseThrow()) {
            return admitted(caller, name, args, start, progress);
        }
    }

    private McpSchema.CallToolResult overShare(
            Caller caller, String name, Map<String, Object> args, FairShare.Refusal refusal, long start) {
        Instant now = clock.instant();
        Instant last = refusalAudited.get(caller.auditName());
        if (last == null || !now.isBefore(last.plusSeconds(60))) {
            refusalAudited.put(caller.auditName(), now);
            record(
                    caller,
                    "mcp:" + Names.printable(name),
                    "denied",
                    refusal.reason() + " (further refusals this minute are not" + " audited)",
                    Map.of(),
                    List.of(),
                    start);
        }
        Map<String, Object> body = failure("refused", refusal.reason(), true);
        body.put("retry_after_seconds", refusal.retryAfterSeconds());
        return McpSchema.CallToolResult.builder()
                .addTextContent(refusal.reason())
                .structuredContent(body)
                .isError(true)
                .build();
    }

    private McpSchema.CallToolResult admitted(
            Caller caller, String name, Map<String, Object> args, long start, ProgressTicker.Sink progress) {
        ToolSpec spec = tools.get(name);
        if (spec == null || !spec.audience().admits(caller)) {
            String printable = Names.printable(name);
            record(caller, "mcp:" + printable, "invalid", "unknown tool", args, List.of(), start);
            throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS)
                    .message("Unknown tool: " + printable)
                    .build();
        }
        if (caller instanceof Caller.Agent agent && !opens(agent, name)) {
            return outsideToolsets(agent, name, args, start);
        }
        JsonSchemaValidator.ValidationResponse valid = validator.validate(spec.inputSchema(), args);
        if (!valid.valid()) {
            String why = "invalid arguments for " + name + ": " + valid.errorMessage();
            record(caller, "mcp:" + name, "invalid", why, args, List.of(), start);
            throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS)
                    .message(bounded(why))
                    .build();
        }
        if (caller instanceof Caller.Agent agent) {
            GuardChain.Verdict verdict;
            try {
                verdict = guards.admit(agent.slug(), spec.operation());
            } catch (RuntimeException e) {
                return fault(caller, name, args, e, start);
            }
            if (verdict instanceof GuardChain.Verdict.Refused refused) {
                String reason = refused.refusal().reason();
                record(caller, "mcp:" + name, "denied", reason, args, List.of(), start);
                return McpSchema.CallToolResult.builder()
                        .addTextContent("refused: " + reason)
                        .structuredContent(
                                failure("refused", reason, refused.refusal().retryable()))
                        .isError(true)
                        .build();
            }
        }
        ScopedSandbox sandbox = null;
        String named = args.get(SANDBOX_ARGUMENT) instanceof String id ? id : null;
        if (named != null || spec.scope() == ToolSpec.Scope.OWN_SANDBOX) {
            Optional<ScopedSandbox> own;
            try {
                own = scope.resolve(caller, named);
            } catch (RuntimeException e) {
                return fault(caller, name, args, e, start);
            }
            if (own.isEmpty()) {
                String reason = named != null
                        ? "no live sandbox '" + Names.printable(named) + "'"
                                + (caller instanceof Caller.Agent ? " of yours" : "") + "; list_sandboxes shows "
                                + (caller instanceof Caller.Agent ? "yours" : "them")
                        : "you have no live sandbox to " + name.replace('_', ' ') + "; call request_sandbox first";
                record(caller, "mcp:" + name, "denied", reason, args, List.of(), start);
                return McpSchema.CallToolResult.builder()
                        .addTextContent(reason)
                        .structuredContent(failure("invalid_state", reason, false))
                        .isError(true)
                        .build();
            }
            sandbox = own.get();
        }
        ToolResult result;
        boolean replayed = false;
        String project = progress == null ? "" : project(caller);
        try (ProgressTicker.Ticking ticking =
                progress == null ? () -> {} : ticker.start(name, () -> progressDetail.apply(project), progress)) {
            if (args.containsKey(IDEMPOTENCY_ARGUMENT) && caller instanceof Caller.Agent agent) {
                IdempotencyKey key = IdempotencyKey.parse(IDEMPOTENCY_ARGUMENT, args.get(IDEMPOTENCY_ARGUMENT));
                Map<String, Object> rest = new LinkedHashMap<>(args);
                rest.remove(IDEMPOTENCY_ARGUMENT);
                ScopedSandbox scoped = sandbox;
                IdempotentCalls.Outcome<ToolResult> outcome = keys.run(
                        "agent:" + agent.slug(),
                        key,
                        "mcp:" + name,
                        rest,
                        answer -> !answer.error(),
                        () -> spec.handler().handle(new ToolCall(caller, name, rest, scoped, policy)));
                if (outcome instanceof IdempotentCalls.Outcome.Answered<ToolResult> answered) {
                    result = answered.answer();
                    replayed = answered.replayed();
                } else {
                    boolean running = outcome instanceof IdempotentCalls.Outcome.StillRunning<ToolResult>;
                    String reason = running
                            ? ((IdempotentCalls.Outcome.StillRunning<ToolResult>) outcome).reason()
                            : ((IdempotentCalls.Outcome.Conflict<ToolResult>) outcome).reason();
                    result = ToolResult.failed(
                            failure(running ? "idempotency_in_progress" : "idempotency_conflict", reason, running),
                            reason);
                }
            } else {
                result = spec.handler().handle(new ToolCall(caller, name, args, sandbox, policy));
            }
        } catch (BadRequest e) {
            record(caller, "mcp:" + name, "invalid", e.getMessage(), args, List.of(), start);
            throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS)
                    .message(bounded(e.getMessage()))
                    .build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fault(caller, name, args, e, start);
        } catch (RuntimeException e) {
            return fault(caller, name, args, e, start);
        }
        // A call the core's front door answered has the core's one record; a replay (the core did not run again) is
        // the gate's to record.
        if (replayed || !result.coreAudited()) {
            record(
                    caller,
                    "mcp:" + name,
                    result.error() ? "tool_error" : "allowed",
                    replayed ? "replayed (same idempotency key): " + result.reason() : result.reason(),
                    args,
                    result.services(),
                    start);
        }
        McpSchema.CallToolResult.Builder answer = McpSchema.CallToolResult.builder()
                .addTextContent(result.text())
                .structuredContent(result.structured())
                .isError(result.error());
        if (replayed) {
            answer.meta(Map.of(REPLAYED_META, true));
        }
        return answer.build();
    }

    private McpSchema.CallToolResult fault(
            Caller caller, String name, Map<String, Object> args, Exception e, long start) {
        // The message of an unexpected exception may carry anything; the log and the audit name its class only.
        log.warn(
                "MCP tool {} failed for {}: {}",
                name,
                caller.auditName(),
                e.getClass().getName());
        String reason =
                "internal error in " + name + " (" + e.getClass().getSimpleName() + "); the server log has the details";
        record(caller, "mcp:" + name, "fault", reason, args, List.of(), start);
        return McpSchema.CallToolResult.builder()
                .addTextContent(reason)
                .structuredContent(failure("internal", reason, true))
                .isError(true)
                .build();
    }

    /** The project's failure envelope: {@code {"ok":false,"error":…,"reason":…,"retryable":…}}. */
    static Map<String, Object> failure(String error, String reason, boolean retryable) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", false);
        body.put("error", error);
        body.put("reason", reason);
        body.put("retryable", retryable);
        return body;
    }

    private void record(
            Caller caller,
            String verb,
            String decision,
            String reason,
            Map<String, Object> args,
            List<String> services,
            long start) {
        String text = bounded(reason);
        if (args.get("sql") instanceof String sql) {
            text = text + " | sql: " + truncate(sql.replaceAll("\\s+", " ").strip(), MAX_SQL);
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        audit.recordAt(clock.instant(), caller.auditName(), project(caller), verb, decision, text, services, millis);
    }

    private String project(Caller caller) {
        if (caller instanceof Caller.Agent agent) {
            try {
                return agents.findAgent(agent.slug()).map(Agent::project).orElse("");
            } catch (RuntimeException e) {
                return "";
            }
        }
        return "";
    }

    static String bounded(String s) {
        return truncate(s == null ? "" : s, MAX_REASON);
    }

    static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "… (" + s.length() + " chars)";
    }
}
