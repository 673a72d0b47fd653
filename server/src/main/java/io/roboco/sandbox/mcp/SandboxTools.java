package io.roboco.sandbox.mcp;

import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.views.SandboxViews;

import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * {@code list_sandboxes}: an agent sees its own sandboxes, the operator every one. The answer is the
 * JSON of {@code GET /api/sandboxes}, scoped to the caller; never a credential.
 */
final class SandboxTools {
    private final SandboxPlugin plugin;
    private final Clock clock;

    SandboxTools(SandboxPlugin plugin, Clock clock) {
        this.plugin = plugin;
        this.clock = clock;
    }

    List<ToolSpec> specs() {
        return List.of(new ToolSpec("list_sandboxes", "List sandboxes",
                "List live sandboxes: yours (an agent token) or every one (the admin token). Services, containers,"
                        + " features and age; no credentials (request_sandbox answers those).",
                McpTools.noArguments(), true, false, true, ToolSpec.Audience.BOTH, ToolSpec.Scope.CALLER, this::list));
    }

    private ToolResult list(ToolCall call) {
        Map<String, Object> listing = call.caller() instanceof Caller.Agent agent
                ? SandboxViews.listing(plugin.sandboxOf(agent.slug()).stream().toList(), clock)
                : SandboxViews.listing(plugin.manager().live(), clock);
        int count = ((List<?>) listing.get("sandboxes")).size();
        return ToolResult.ok(listing, count + " live sandbox(es)" + (call.caller() instanceof Caller.Agent ? " of yours" : ""));
    }
}
