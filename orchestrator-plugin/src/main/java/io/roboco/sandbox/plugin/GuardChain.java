package io.roboco.sandbox.plugin;

import io.roboco.sandbox.guard.AgentOperation;
import io.roboco.sandbox.guard.RoleManifest;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.SettingsStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one guard chain, for every road an agent or the operator takes to a sandbox (the verb set, named sandboxes,
 * data operations, templates, inspection; over HTTP and MCP), in the contract's order:
 * <ol start="0">
 *   <li>role: the agent's role carries the operation's verb ({@link RoleManifest});</li>
 *   <li>the feature flag;</li>
 *   <li>an active, project-bound task;</li>
 *   <li>the project opted in;</li>
 *   <li>every service and feature asked for allowed ({@link Guards#allowed});</li>
 *   <li>the orchestrator handle available (the only retryable step).</li>
 * </ol>
 * Capacity comes last, as the sandbox book's reservation. An agent's ask passes 0-3 ({@link #admit}; a
 * {@link AgentOperation.Reach#CLEANUP} operation only 0); a sandbox to make passes 4-5 ({@link #request}); the
 * operator, who is trusted with any owner, skips 0 and 2. Each refusal names its reason and what to do.
 */
public final class GuardChain {
    private final RoleManifest roles;
    private final SettingsStore store;
    private final boolean flagEffective;
    private final OrchestratorHandle handle;
    private final Guards allowlist;

    GuardChain(
            RoleManifest roles,
            SettingsStore store,
            boolean flagEffective,
            OrchestratorHandle handle,
            Guards allowlist) {
        this.roles = roles;
        this.store = store;
        this.flagEffective = flagEffective;
        this.handle = handle;
        this.allowlist = allowlist;
    }

    /** What steps 0-3 found: the agent and its project, or the refusal. */
    public sealed interface Verdict {
        /** Passed; for an engaged operation the agent is known, has a task, and its project opted in. */
        record Passed(Optional<Agent> agent, Optional<Project> project) implements Verdict {}

        record Refused(SandboxDecision.Refused refusal) implements Verdict {}
    }

    /** What steps 4-5 found: the validated request, or the refusal. */
    public sealed interface Checked {
        record Admitted(SandboxRequest request) implements Checked {}

        record Refused(SandboxDecision.Refused refusal) implements Checked {}
    }

    /** Steps 0-3 for agent {@code slug} (read from the store). */
    public Verdict admit(String slug, AgentOperation operation) {
        return admit(slug, store.findAgent(slug), operation);
    }

    /** Steps 0-3 for agent {@code slug}, already looked up. An unknown agent has no role: it is refused at step 2. */
    public Verdict admit(String slug, Optional<Agent> agent, AgentOperation operation) {
        if (agent.isPresent() && !roles.carries(agent.get().role(), operation.verb())) {
            return refused(roleRefusal(agent.get().role(), operation.verb()), "role");
        }
        if (operation.reach() == AgentOperation.Reach.CLEANUP) {
            return new Verdict.Passed(agent, Optional.empty());
        }
        if (!flagEffective) {
            return refused(flagRefusal(), "flag_off");
        }
        if (agent.isEmpty()) {
            return refused(
                    "agent '" + Names.printable(slug)
                            + "' is not known to the orchestrator; it must be spawned and given work" + " first",
                    "no_task");
        }
        if (!agent.get().hasActiveTask()) {
            return refused(
                    "agent '" + Names.printable(slug) + "' has no active, project-bound task; call give_me_work first",
                    "no_task");
        }
        String projectId = agent.get().project();
        Optional<Project> project = store.findProject(projectId);
        Optional<String> notOptedIn = optedIn(projectId, project);
        if (notOptedIn.isPresent()) {
            return refused(notOptedIn.get(), "not_opted_in");
        }
        return new Verdict.Passed(agent, project);
    }

    /** Steps 1 and 3 for the operator's ask on behalf of {@code projectId} (no role, no task: the operator is trusted). */
    public Verdict admitOperator(String projectId, Optional<Project> project) {
        if (!flagEffective) {
            return refused(flagRefusal(), "flag_off");
        }
        Optional<String> notOptedIn = optedIn(projectId, project);
        if (notOptedIn.isPresent()) {
            return refused(notOptedIn.get(), "not_opted_in");
        }
        return new Verdict.Passed(Optional.empty(), project);
    }

    /** Steps 4-5 for a sandbox of {@code owner} in {@code project}. */
    public Checked request(String owner, Project project, List<String> asked, Map<String, List<String>> perCall) {
        SandboxRequest.Validation validation = allowlist.allowed(owner, project, asked, perCall);
        if (validation instanceof SandboxRequest.Validation.Invalid invalid) {
            return new Checked.Refused(new SandboxDecision.Refused(invalid.reason(), false, "not_allowed", List.of()));
        }
        OrchestratorHandle.State state = handle.state();
        if (state != OrchestratorHandle.State.RUNNING) {
            return new Checked.Refused(new SandboxDecision.Refused(
                    "the orchestrator is " + state.name().toLowerCase() + "; try again in a few seconds",
                    true,
                    "unavailable",
                    List.of()));
        }
        return new Checked.Admitted(((SandboxRequest.Validation.Valid) validation).request());
    }

    public RoleManifest roles() {
        return roles;
    }

    /** The role step's message: {@code role 'reviewer' does not carry request_sandbox; only developer and qa do}. */
    public String roleRefusal(String role, String verb) {
        List<String> carriers = roles.rolesCarrying(verb);
        return "role '" + Names.printable(role) + "' does not carry " + verb + "; only " + humanList(carriers)
                + (carriers.size() == 1 ? " does" : " do");
    }

    private static String flagRefusal() {
        return "sandboxes are disabled: feature flag ROBOCO_SANDBOX_DB_ENABLED is off; an admin can turn it on "
                + "(it takes effect on the next backend restart)";
    }

    private static Optional<String> optedIn(String projectId, Optional<Project> project) {
        if (project.isEmpty() || !project.get().optedIn()) {
            return Optional.of("project '" + Names.printable(projectId)
                    + "' has no sandbox_services; an operator can opt it in on the"
                    + " project's Sandbox settings card");
        }
        return Optional.empty();
    }

    private static Verdict refused(String reason, String code) {
        return new Verdict.Refused(new SandboxDecision.Refused(reason, false, code, List.of()));
    }

    /** "a", "a and b", "a, b and c". */
    private static String humanList(List<String> items) {
        if (items.size() <= 1) {
            return String.join("", items);
        }
        return String.join(", ", items.subList(0, items.size() - 1)) + " and " + items.get(items.size() - 1);
    }
}
