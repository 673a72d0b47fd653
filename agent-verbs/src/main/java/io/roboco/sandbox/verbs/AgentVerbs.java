package io.roboco.sandbox.verbs;

import io.roboco.sandbox.data.DataOutcome;
import io.roboco.sandbox.guard.AgentOperation;
import io.roboco.sandbox.guard.RoleManifest;
import io.roboco.sandbox.plugin.GuardChain;
import io.roboco.sandbox.plugin.SandboxDecision;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.plugin.SandboxService;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.request.AgentSlug;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.request.ProjectId;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.SettingsStore;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verb contract in front of {@link SandboxPlugin}: argument parsing, the role check, spawn
 * manifests, and the lifecycle exits.
 *
 * <p>Order of checks for every call: agent slug shape, verb known, argument shapes (each a
 * {@link BadRequest}); then the plugin's {@link GuardChain} (role, and for what reaches a sandbox the flag, an active
 * task and the project's opt-in: a refusal, audited); then the verb itself.
 *
 * <p>Lifecycle exits ({@code i_am_done, unclaim, i_am_idle, pass_review, fail_review, i_documented}):
 * the verb's own effect is to clear the agent's active task (the project binding stays, so the
 * next {@code give_me_work} may rebind). After that succeeds, the agent's sandbox is released
 * best-effort: a failing release is logged and audited, and never makes the verb fail.
 */
public final class AgentVerbs {
    private static final Logger log = LoggerFactory.getLogger(AgentVerbs.class);
    /** Audit verb for the teardown that follows removal of the agent's own container. */
    public static final String CONTAINER_REMOVED = "container_removed";
    /** Audit verb for the teardown of an earlier engagement's sandboxes when the agent's slug is spawned again. */
    public static final String RESPAWNED = "agent_respawned";

    private final SandboxPlugin plugin;
    private final SandboxService service;
    private final SettingsStore store;
    private final GuardChain guards;
    private final RoleManifest roles;
    private final Clock clock;
    private final Engagements engagements;

    /** The verbs over {@code plugin}, whose guard chain (and its role manifest) every verb asks. */
    public AgentVerbs(SandboxPlugin plugin, Clock clock) {
        this.plugin = plugin;
        this.service = plugin.service();
        this.store = plugin.store();
        this.guards = plugin.guards();
        this.roles = guards.roles();
        this.clock = clock;
        this.engagements = new Engagements(plugin, clock);
    }

    /**
     * Registers (or re-registers) the agent with its role and project, without an active task, and
     * answers its spawn manifest. {@code project} may be null for agents outside any project. Each spawn is a new
     * engagement: a slug spawned again first loses what its earlier engagement held (tokens, verb set, named sandboxes).
     */
    public SpawnManifest spawn(String slug, String role, String project) {
        AgentSlug.parse(slug);
        List<String> verbs = roles.requireRole(role);
        if (project != null) {
            ProjectId.parse(project);
        }
        engagements.begin(slug, RESPAWNED);
        store.saveAgent(new Agent(slug, role, project, null));
        Map<String, String> env = new LinkedHashMap<>();
        List<String> briefing = List.of();
        if (verbs.contains(VerbNames.REQUEST_SANDBOX) && project != null) {
            List<String> available = plugin.servicesAvailable(project);
            if (!available.isEmpty()) {
                env.put(SpawnManifest.SERVICES_MARKER, String.join(",", available));
                briefing = List.of(SpawnManifest.sandboxBriefing(available));
            }
        }
        return new SpawnManifest(slug, role, project, verbs, env, briefing);
    }

    /**
     * {@code request_sandbox}'s arguments (a JSON-decoded object, null for none) as the core's typed ask, for an adapter
     * that calls {@link SandboxService#ensure} itself (the MCP tool): besides the verb's own, {@code name} (a sandbox of
     * the agent's other than its verb set) and {@code ttl} (that one's lifetime), parsed by their value types.
     *
     * @throws BadRequest for a malformed slug or malformed arguments (a {@code ttl} without a {@code name} too)
     */
    public static SandboxService.Ensure ensureAsk(String slug, Map<String, Object> args) {
        AgentSlug.parse(slug);
        return Arguments.sandboxRequest(slug, args, Arguments.NAMED_KEYS);
    }

    /**
     * Runs one verb. {@code args} is the JSON-decoded argument object (null or empty for none).
     *
     * @throws BadRequest for a malformed slug, an unknown verb or malformed arguments
     */
    public Envelope call(String slug, String verb, Map<String, Object> args) throws InterruptedException {
        AgentSlug.parse(slug);
        VerbNames.requireKnown(verb);
        if (VerbNames.REQUEST_SANDBOX.equals(verb)) {
            return Envelope.of(service.ensure(Arguments.sandboxRequest(slug, args)));
        }
        if (VerbNames.GIVE_ME_WORK.equals(verb)) {
            return giveMeWork(slug, Arguments.work(args));
        }
        if (VerbNames.DATA.contains(verb)) {
            return dataVerb(slug, verb, Arguments.name(verb, args));
        }
        if (VerbNames.SAVE_TEMPLATE.equals(verb)) {
            Arguments.Template t = Arguments.template(args);
            return dataVerb(slug, verb, t.name(), t.replace());
        }
        Arguments.none(verb, args);
        if (VerbNames.RELEASE_SANDBOX.equals(verb)) {
            return Envelope.of(service.release(SandboxService.Release.byAgent(slug)));
        }
        return lifecycleExit(slug, verb);
    }

    /**
     * A data verb ({@link VerbNames#DATA}) on one of the agent's own sandboxes by id (MCP's {@code sandbox} argument):
     * a named sandbox, or its verb set; the same role check and audit as {@link #call}. {@code args} is {@code {"name"}}.
     *
     * @throws BadRequest for a malformed slug, a verb that is not a data verb, or malformed arguments
     */
    public Envelope callOn(String slug, String sandboxId, String verb, Map<String, Object> args)
            throws InterruptedException {
        AgentSlug.parse(slug);
        boolean save = VerbNames.SAVE_TEMPLATE.equals(verb);
        if (!VerbNames.DATA.contains(verb) && !save) {
            throw new BadRequest("'" + Names.printable(verb) + "' is not a data verb; these are: "
                    + String.join(", ", VerbNames.DATA) + ", " + VerbNames.SAVE_TEMPLATE);
        }
        Arguments.Template template = save ? Arguments.template(args) : null;
        String name = save ? template.name() : Arguments.name(verb, args);
        Admission admission = admitDataVerb(slug, verb);
        if (admission.refusal() != null) {
            return admission.refusal();
        }
        String project = admission.agent().project();
        Optional<Sandboxes> sandboxes = plugin.sandboxes();
        boolean own = sandboxes
                .flatMap(s -> s.find(sandboxId))
                .filter(r -> r.owner().equals(slug))
                .isPresent();
        if (!own) {
            return refuse(slug, project, verb, "no sandbox '" + Names.printable(sandboxId) + "' of yours", List.of());
        }
        DataOutcome outcome;
        try {
            outcome = save
                    ? sandboxes.get().saveTemplate(sandboxId, name, template.replace())
                    : sandboxes.get().dataOperation(sandboxId, verb, name);
        } catch (Sandboxes.NotFound | Sandboxes.Conflict e) {
            return refuse(slug, project, verb, e.getMessage(), List.of());
        }
        return envelope(verb, outcome);
    }

    /**
     * The agent's own container was removed: its engagement ends (tokens revoked, verb set and named sandboxes torn
     * down) and it is forgotten. Returns the verb set's containers removed.
     */
    public int containerRemoved(String slug) {
        AgentSlug.parse(slug);
        int removed = engagements.end(slug, CONTAINER_REMOVED);
        store.deleteAgent(slug);
        return removed;
    }

    private Envelope dataVerb(String slug, String verb, String name) throws InterruptedException {
        return dataVerb(slug, verb, name, false);
    }

    /** A data verb, or save_template (with {@code replace}). */
    private Envelope dataVerb(String slug, String verb, String name, boolean replace) throws InterruptedException {
        Admission admission = admitDataVerb(slug, verb);
        if (admission.refusal() != null) {
            return admission.refusal();
        }
        return envelope(
                verb,
                VerbNames.SAVE_TEMPLATE.equals(verb)
                        ? plugin.saveTemplate(slug, name, replace)
                        : plugin.dataOperation(slug, verb, name));
    }

    private static Envelope envelope(String verb, DataOutcome outcome) {
        if (outcome instanceof DataOutcome.Done done) {
            return Envelope.ok(verb, done.evidence());
        }
        if (outcome instanceof DataOutcome.Refused refused) {
            return Envelope.refused(refused.reason(), false);
        }
        DataOutcome.Failed failed = (DataOutcome.Failed) outcome;
        return Envelope.invalidState(failed.reason(), failed.retryable());
    }

    private Envelope giveMeWork(String slug, Arguments.Work work) {
        Optional<Agent> agent = store.findAgent(slug);
        if (agent.isEmpty()) {
            return refuse(slug, "", VerbNames.GIVE_ME_WORK, notSpawned(slug), List.of());
        }
        Optional<Envelope> refusal = roleCheck(agent.get(), VerbNames.GIVE_ME_WORK, List.of());
        if (refusal.isPresent()) {
            return refusal.get();
        }
        if (store.findProject(work.project()).isEmpty()) {
            return refuse(
                    slug,
                    work.project(),
                    VerbNames.GIVE_ME_WORK,
                    "project '" + work.project() + "' is not known; an admin registers it with PUT /api/projects/"
                            + work.project(),
                    List.of());
        }
        store.saveAgent(agent.get().withTask(work.project(), work.task()));
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("project", work.project());
        evidence.put("task", work.task());
        return Envelope.ok(VerbNames.GIVE_ME_WORK, evidence);
    }

    private Envelope lifecycleExit(String slug, String verb) {
        Optional<Agent> found = store.findAgent(slug);
        if (found.isEmpty()) {
            return refuse(slug, "", verb, notSpawned(slug), List.of());
        }
        Agent agent = found.get();
        Optional<Envelope> refusal = roleCheck(agent, verb, List.of());
        if (refusal.isPresent()) {
            return refusal.get();
        }
        store.saveAgent(agent.withTask(agent.project(), null));
        int removed = releaseQuietly(slug, verb);
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("task_cleared", agent.task());
        evidence.put("sandbox_containers_removed", removed);
        return Envelope.ok(verb, evidence);
    }

    /** The removed agent's named sandboxes end with it (a verb-set release leaves them); best-effort, like the release. */
    /** Best-effort release: whatever goes wrong is logged and swallowed, so the calling verb still succeeds. */
    private int releaseQuietly(String slug, String verb) {
        try {
            return service.release(SandboxService.Release.after(slug, verb)).removed();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            log.warn(
                    "best-effort sandbox release after {} for agent {} failed ({}); the janitor will sweep it",
                    verb,
                    slug,
                    e.getClass().getSimpleName());
            return 0;
        }
    }

    /** The spawned agent a data verb runs for, or (agent null) the refusal: not spawned, or its role may not. */
    private record Admission(Agent agent, Envelope refusal) {}

    /** A data verb passes the whole chain before it: role, flag, active task, project opted in. */
    private Admission admitDataVerb(String slug, String verb) {
        Optional<Agent> agent = store.findAgent(slug);
        if (agent.isEmpty()) {
            return new Admission(null, refuse(slug, "", verb, notSpawned(slug), List.of()));
        }
        GuardChain.Verdict verdict = guards.admit(slug, agent, AgentOperation.ofDataVerb(verb));
        if (verdict instanceof GuardChain.Verdict.Refused refused) {
            return new Admission(null, refuse(slug, agent.get().project(), verb, refused.refusal(), List.of()));
        }
        return new Admission(agent.get(), null);
    }

    /** The role step for the verbs that reach no sandbox (give_me_work, the lifecycle exits). */
    private Optional<Envelope> roleCheck(Agent agent, String verb, List<String> services) {
        if (roles.carries(agent.role(), verb)) {
            return Optional.empty();
        }
        return Optional.of(refuse(
                agent.slug(),
                agent.project(),
                verb,
                new SandboxDecision.Refused(guards.roleRefusal(agent.role(), verb), false, "role", List.of()),
                services));
    }

    /** A refusal of the chain: counted, audited, answered. */
    private Envelope refuse(
            String slug, String project, String verb, SandboxDecision.Refused refusal, List<String> services) {
        plugin.tell(refusal, 0);
        return refuse(slug, project, verb, refusal.reason(), services);
    }

    private Envelope refuse(String slug, String project, String verb, String reason, List<String> services) {
        plugin.audit().recordAt(clock.instant(), slug, project, verb, Envelope.REFUSED, reason, services, 0);
        return Envelope.refused(reason, false);
    }

    private static String notSpawned(String slug) {
        return "agent '" + slug + "' is not spawned; the orchestrator registers it with POST /api/agents/" + slug
                + "/spawn";
    }
}
