package io.roboco.sandbox.plugin;

import io.roboco.sandbox.data.SandboxData;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.guard.AgentOperation;
import io.roboco.sandbox.guard.Verbs;
import io.roboco.sandbox.manager.Admission;
import io.roboco.sandbox.manager.EnsureOutcome;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.SandboxName;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.AuditTrail;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.ProjectForm;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.ServiceLimits;
import io.roboco.sandbox.settings.SettingsStore;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core's one front door: every operation on a sandbox takes the same steps. The edge (a verb, an MCP tool, an HTTP
 * route, a page) parses its input once into a typed ask; here the ask passes the one {@link GuardChain}, capacity is
 * reserved (the manager's admission: committed when the set is held, abandoned when it fails), the set is provisioned,
 * and the call ends in one typed outcome and one audit record (written through the {@link AuditTrail}, never with a
 * credential). The adapters only render the outcome.
 */
public final class SandboxService {
    private static final Logger log = LoggerFactory.getLogger(SandboxService.class);

    private final EngineRegistry registry;
    private final SandboxManager manager;
    private final SettingsStore store;
    private final GuardChain chain;
    private final AuditTrail audit;
    private final SandboxEvents events;
    private final SandboxData data;
    /** The sandboxes as records (null when the plugin keeps none): a release that names a sandbox ends its record. */
    private final Sandboxes sandboxes;
    /** The template an agent's live sandbox named default was made from, when it was (per-call templates). */
    private final Map<String, String> templateOf = new ConcurrentHashMap<>();

    SandboxService(
            EngineRegistry registry,
            SandboxManager manager,
            SettingsStore store,
            GuardChain chain,
            AuditTrail audit,
            SandboxEvents events,
            SandboxData data,
            Sandboxes sandboxes) {
        this.registry = registry;
        this.manager = manager;
        this.store = store;
        this.chain = chain;
        this.audit = audit;
        this.events = events;
        this.data = data;
        this.sandboxes = sandboxes;
    }

    /**
     * An agent's ask for its sandbox of a name ({@code request_sandbox}), its shapes parsed at the edge: the one named
     * {@code default} (its verb set) unless the ask names another.
     *
     * @param name       the sandbox's name ({@link SandboxName#VERB_SET} when none was given); how its sandbox lives is
     *                   the name's property ({@link SandboxName#slides})
     * @param services   the services wanted now, in the order asked (empty: the project's whole set)
     * @param extensions service → per-call features on top of the project's standing set
     * @param ttl        a named sandbox's fixed lifetime (null: the project's default); the verb set's slides, so it
     *                   takes none
     * @param labels     labels for the sandbox's record (already validated; null keeps the record's)
     * @param template   a template of the project's own a new sandbox starts from (null: the project's seed)
     */
    public record Ensure(
            String agent,
            SandboxName name,
            List<String> services,
            Map<String, List<String>> extensions,
            Duration ttl,
            Map<String, String> labels,
            String template) {
        public Ensure {
            name = name == null ? SandboxName.VERB_SET : name;
            if (ttl != null) {
                name.requireFixedTtl("ttl");
            }
            services = services == null ? List.of() : List.copyOf(new LinkedHashSet<>(services));
            extensions = extensions == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(extensions));
        }

        /** An ask for the agent's verb set (its sandbox named {@code default}). */
        public Ensure(
                String agent,
                List<String> services,
                Map<String, List<String>> extensions,
                Map<String, String> labels,
                String template) {
            this(agent, SandboxName.VERB_SET, services, extensions, null, labels, template);
        }
    }

    /**
     * Ending a sandbox of an agent's: the one it names by id ({@code sandbox}), whatever its kind, or (none named) its
     * sandbox named {@code default}. Asked by the agent itself ({@link #byAgent}, which passes the guard chain's role
     * step) or done after {@code verb} (an engagement's end, the operator, a stop), which always may.
     *
     * @param sandbox the id of the sandbox to end (the caller's own, as the edge resolved it); null or empty: the agent's
     *                sandbox named default
     */
    public record Release(String agent, String sandbox, String verb, boolean byAgent) {
        public Release {
            sandbox = sandbox == null || sandbox.isEmpty() ? null : sandbox;
        }

        /** The agent's own {@code release_sandbox} of its sandbox named default. */
        public static Release byAgent(String agent) {
            return new Release(agent, null, Verbs.RELEASE_SANDBOX, true);
        }

        /** The agent's own {@code release_sandbox} of {@code sandbox}, one of its own (null: its sandbox named default). */
        public static Release byAgent(String agent, String sandbox) {
            return new Release(agent, sandbox, Verbs.RELEASE_SANDBOX, true);
        }

        /** A release of the agent's sandbox named default that follows {@code verb} (audited under it); never refused. */
        public static Release after(String agent, String verb) {
            return new Release(agent, null, verb, false);
        }
    }

    /** What a release did. */
    public sealed interface ReleaseOutcome {
        /** The containers removed (none when refused). */
        default int removed() {
            return 0;
        }

        /** The sandbox is gone (or there was none): {@code removed} containers were removed. */
        record Released(int removed) implements ReleaseOutcome {}

        /**
         * The sandbox the release named by id is gone: {@code deleted} when this release ended it (false: it already was),
         * with {@code removed} containers.
         */
        record Ended(String id, boolean deleted, int removed) implements ReleaseOutcome {}

        /** The guard chain said no; nothing was touched. */
        record NotReleased(SandboxDecision.Refused refusal) implements ReleaseOutcome {}
    }

    /**
     * The agent's sandbox of the ask's name. The verb set (named default, {@link SandboxName#slides}): from the live
     * cache, grown, or newly provisioned. Another name: the live one of that name with the credentials this process
     * holds for it, answered again as it was made, else a new one through the same guards, quota, capacity and audit as
     * {@code POST /api/sandboxes} ({@link Sandboxes#createForAgent}). Either way one typed decision and one audit record.
     */
    public SandboxDecision ensure(Ensure ask) throws InterruptedException {
        return ensure(ask, store.findAgent(ask.agent()));
    }

    /** {@link #ensure(Ensure)} for a caller that has already looked the agent up in this plugin's store. */
    public SandboxDecision ensure(Ensure ask, Optional<Agent> agent) throws InterruptedException {
        if (!ask.name().slides()) {
            return named(ask, agent);
        }
        long start = System.nanoTime();
        SandboxDecision decision = decide(ask, agent);
        long decided = System.nanoTime();
        tell(decision, decided - start);
        List<String> audited = decision instanceof SandboxDecision.Granted g
                ? g.sandboxes().stream().map(SandboxDecision.Grant::service).toList()
                : ask.services();
        audit(ask.agent(), agent.map(Agent::project).orElse(""), Verbs.REQUEST_SANDBOX, decision, audited, start);
        if (log.isDebugEnabled()) {
            log.debug(
                    "request_sandbox {}: guards+ensure {} us, audit {} us",
                    ask.agent(),
                    (decided - start) / 1000,
                    (System.nanoTime() - decided) / 1000);
        }
        return decision;
    }

    /**
     * The agent's sandbox of a fixed lifetime by its name: the live one with its held credentials, else a create (whose
     * own record is the call's audit); the answer again, and a refusal before the create, are audited here.
     */
    private SandboxDecision named(Ensure ask, Optional<Agent> agent) throws InterruptedException {
        long start = System.nanoTime();
        String slug = ask.agent();
        String name = ask.name().value();
        String project = agent.map(Agent::project).orElse(null);
        SandboxDecision answer;
        if (sandboxes == null) {
            answer = new SandboxDecision.Refused(
                    "this server keeps no sandbox records, so it makes no named sandbox; request_sandbox without"
                            + " 'name' answers your task's own",
                    false,
                    "not_allowed",
                    List.of());
        } else if (project == null) {
            answer = new SandboxDecision.Refused(
                    "you are not bound to a project; the orchestrator spawns you with one (POST /api/agents/" + slug
                            + "/spawn)",
                    false,
                    "not_allowed",
                    List.of());
        } else {
            Optional<SandboxRecord> live = sandboxes.live(slug, name);
            if (live.isEmpty()) {
                return create(ask, project, start);
            }
            // The core's registry of live sandboxes holds it: made since the start (MCP or HTTP), or re-adopted after a
            // restart.
            SandboxRecord record = live.get();
            answer = sandboxes
                    .heldGrants(record.id())
                    .<SandboxDecision>map(held ->
                            new SandboxDecision.Granted(held, true, record.id(), record.expires(), null, "hit", record))
                    .orElseGet(() -> new SandboxDecision.Refused(
                            "your sandbox named '" + name + "' (" + record.id()
                                    + ") exists, but its credentials were answered only when it was created and this"
                                    + " server no longer holds them; release it (release_sandbox with sandbox="
                                    + record.id() + ") and request it again, or pick another name",
                            false,
                            "not_allowed",
                            List.of()));
        }
        tell(answer, System.nanoTime() - start);
        List<String> audited = answer instanceof SandboxDecision.Granted g
                ? g.sandboxes().stream().map(SandboxDecision.Grant::service).toList()
                : ask.services();
        audit(slug, project == null ? "" : project, Verbs.REQUEST_SANDBOX, answer, audited, start);
        return answer;
    }

    /** A new named sandbox for the ask: {@link Sandboxes#createForAgent}, which audits it. */
    private SandboxDecision create(Ensure ask, String project, long start) throws InterruptedException {
        Sandboxes.CreateOutcome outcome;
        try {
            outcome = sandboxes.createForAgent(new Sandboxes.CreateRequest(
                    ask.agent(),
                    project,
                    ask.services(),
                    ask.extensions(),
                    ask.name().value(),
                    ask.ttl(),
                    ask.labels(),
                    ask.template()));
        } catch (BadRequest e) {
            // Well-formed but over a limit (a ttl past the project's max): a refusal the agent can correct.
            SandboxDecision.Refused refusal =
                    new SandboxDecision.Refused(e.getMessage(), false, "not_allowed", List.of());
            tell(refusal, System.nanoTime() - start);
            audit(ask.agent(), project, Sandboxes.CREATE_VERB, refusal, ask.services(), start);
            return refusal;
        }
        if (outcome instanceof Sandboxes.CreateOutcome.Created created) {
            SandboxRecord record = created.record();
            return new SandboxDecision.Granted(
                    created.services(), false, record.id(), record.expires(), null, "cold", record);
        }
        return ((Sandboxes.CreateOutcome.NotCreated) outcome).decision();
    }

    private SandboxDecision decide(Ensure ask, Optional<Agent> agent) throws InterruptedException {
        String slug = ask.agent();
        GuardChain.Verdict verdict = chain.admit(slug, agent, AgentOperation.REQUEST);
        if (verdict instanceof GuardChain.Verdict.Refused refused) {
            return refused.refusal();
        }
        Optional<Project> project = ((GuardChain.Verdict.Passed) verdict).project();
        String template = ask.template();
        if (template != null) {
            Optional<String> why = TemplateSeeds.refusal(
                    template, project.get(), manager.provisioner().templates(), registry);
            if (why.isEmpty() && manager.find(slug).isPresent() && !template.equals(templateOf.get(slug))) {
                why = Optional.of("your sandbox " + manager.find(slug).get().id()
                        + " is live and was not made from template '" + template
                        + "'; a template seeds a new sandbox: call release_sandbox first, then request_sandbox(template=\""
                        + template + "\")");
            }
            if (why.isPresent()) {
                return new SandboxDecision.Refused(why.get(), false, "not_allowed", List.of());
            }
            project = project.map(p -> TemplateSeeds.seededWith(p, template, registry));
        }
        GuardChain.Checked checked = chain.request(slug, project.get(), ask.services(), ask.extensions());
        if (checked instanceof GuardChain.Checked.Refused refused) {
            return refused.refusal();
        }
        SandboxRequest request = ((GuardChain.Checked.Admitted) checked).request();
        SandboxDecision decision = decision(manager.ensure(request, ask.labels()));
        if (decision instanceof SandboxDecision.Granted g && !g.cacheHit()) {
            if (template == null) {
                templateOf.remove(slug);
            } else {
                templateOf.put(slug, template);
            }
        }
        return decision;
    }

    /**
     * Tears a sandbox of the agent's down (asked by the agent: after the guard chain's role step): the one the ask names
     * by id through its record ({@link Sandboxes#delete}, the same end as {@code DELETE /api/sandboxes/{id}}, whatever its
     * kind), else the agent's sandbox named default with whatever else of its the manager finds. Never throws for a
     * release of the sandbox named default (a store that cannot answer must not stop it).
     */
    public ReleaseOutcome release(Release ask) {
        long start = System.nanoTime();
        String slug = ask.agent();
        Optional<Agent> agent = Optional.empty();
        if (ask.byAgent()) {
            agent = store.findAgent(slug);
            // Releasing is always safe: an agent whose task ended, or an unknown one (e.g. after a restart), may still
            // clean up.
            GuardChain.Verdict verdict = chain.admit(slug, agent, AgentOperation.RELEASE);
            if (verdict instanceof GuardChain.Verdict.Refused refused) {
                tell(refused.refusal(), 0);
                audit.recordAt(
                        audit.now(),
                        slug,
                        agent.map(Agent::project).orElse(""),
                        ask.verb(),
                        "refused",
                        refused.refusal().reason(),
                        List.of(),
                        0);
                return new ReleaseOutcome.NotReleased(refused.refusal());
            }
        }
        if (ask.sandbox() != null && sandboxes != null) {
            String why = ask.byAgent() ? "released by its owner" : "released after " + ask.verb();
            Optional<SandboxRecord> named = sandboxes.find(ask.sandbox());
            if (named.isPresent() && !named.get().owner().equals(slug)) {
                // The edge resolves the sandbox among the caller's own; the core does not take another owner's on
                // trust.
                SandboxDecision.Refused refusal = new SandboxDecision.Refused(
                        "sandbox " + ask.sandbox() + " is not one of " + slug + "'s", false, "not_allowed", List.of());
                audit.record(slug, named.get().project(), ask.verb(), "refused", refusal.reason(), List.of(), start);
                return new ReleaseOutcome.NotReleased(refusal);
            }
            int containers = named.map(r -> r.containers().size()).orElse(0);
            try {
                boolean deleted = sandboxes.delete(ask.sandbox(), why) == Sandboxes.Deletion.DELETED;
                return new ReleaseOutcome.Ended(ask.sandbox(), deleted, deleted ? containers : 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new ReleaseOutcome.Ended(ask.sandbox(), false, 0);
            }
        }
        String project = ask.byAgent() ? agent.map(Agent::project).orElse("") : projectOf(slug);
        Set<String> services =
                manager.find(slug).map(e -> e.services().keySet()).orElse(Set.of());
        List<String> audited = List.copyOf(new TreeSet<>(services));
        try {
            int removed = manager.release(slug);
            data.forget(slug);
            templateOf.remove(slug);
            audit.record(slug, project, ask.verb(), "released", removed + " container(s) removed", audited, start);
            return new ReleaseOutcome.Released(removed);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            audit.record(slug, project, ask.verb(), "invalid_state", "interrupted while releasing", audited, start);
        } catch (RuntimeException e) {
            log.warn("release of agent {}'s sandbox failed: {}", slug, e.getMessage());
            audit.record(
                    slug, project, ask.verb(), "invalid_state", "release failed: " + e.getMessage(), audited, start);
        }
        return new ReleaseOutcome.Released(0);
    }

    /** The agent's project for the audit record; a store that cannot answer must not stop a release. */
    private String projectOf(String slug) {
        try {
            return store.findAgent(slug).map(Agent::project).orElse("");
        } catch (RuntimeException e) {
            log.warn(
                    "could not read agent {} while releasing its sandbox (releasing anyway): {}", slug, e.getMessage());
            return "";
        }
    }

    /** Counts what a decision was, for metrics (the verb layer tells its own role refusals here). */
    void tell(SandboxDecision decision, long nanos) {
        try {
            if (decision instanceof SandboxDecision.Granted g) {
                events.granted(g.path(), Duration.ofNanos(nanos));
            } else if (decision instanceof SandboxDecision.Refused r) {
                events.refused(r.code());
            } else if (decision instanceof SandboxDecision.InvalidState st) {
                events.invalidState(st.code());
            }
        } catch (RuntimeException e) {
            log.debug("sandbox event listener failed: {}", e.toString());
        }
    }

    /** The one audit record of a decision: granted (how), refused or invalid_state (why). */
    void audit(String actor, String project, String verb, SandboxDecision decision, List<String> services, long start) {
        if (decision instanceof SandboxDecision.Granted g) {
            String how = g.cacheHit() ? "cache hit" : "provisioned (" + g.path() + ")";
            if (g.sandboxId() != null && !g.sandboxId().isEmpty()) {
                how += ", sandbox " + g.sandboxId();
            }
            if (g.expiredPrevious() != null) {
                how += "; the previous sandbox " + g.expiredPrevious() + " had expired";
            }
            audit.record(actor, project, verb, "granted", how, services, start);
        } else if (decision instanceof SandboxDecision.Refused r) {
            audit.record(actor, project, verb, "refused", r.reason(), services, start);
        } else if (decision instanceof SandboxDecision.InvalidState s) {
            audit.record(actor, project, verb, "invalid_state", s.reason(), services, start);
        }
    }

    /** The decision for a manager outcome. */
    private SandboxDecision decision(EnsureOutcome outcome) {
        if (outcome instanceof EnsureOutcome.Ready ready) {
            return new SandboxDecision.Granted(
                    ready.services().stream().map(this::grant).toList(),
                    ready.cacheHit(),
                    ready.sandboxId(),
                    ready.expires(),
                    ready.expiredPrevious(),
                    ready.path().wire());
        }
        if (outcome instanceof EnsureOutcome.Denied denied) {
            return denial(denied.denial());
        }
        EnsureOutcome.Failed failed = (EnsureOutcome.Failed) outcome;
        return new SandboxDecision.InvalidState(failed.reason(), failed.retryable(), "provisioning", failed.queue());
    }

    static SandboxDecision denial(Admission.Decision.Denied d) {
        return d.refusal()
                ? new SandboxDecision.Refused(d.reason(), d.retryable(), d.code(), d.ownerSandboxes())
                : new SandboxDecision.InvalidState(d.reason(), d.retryable(), d.code());
    }

    /** One service's answer: its env (the credentials), its active features and its caps. */
    SandboxDecision.Grant grant(ServiceInstance instance) {
        Engine engine = registry.require(instance.service());
        return new SandboxDecision.Grant(
                instance.service(),
                engine.env(instance.agentEndpoint(), instance.credentials()),
                engine.featuresKey(),
                List.copyOf(new TreeSet<>(instance.features())),
                limits(instance.limits()));
    }

    /** A container's caps as the evidence shows them: {@code {"memory":"512m","data_size":"256m","cpus":1}}; empty when not known. */
    static Map<String, Object> limits(Limits limits) {
        if (limits == null) {
            return Map.of();
        }
        return ProjectForm.limitsJson(new ServiceLimits(limits.memoryBytes(), limits.tmpfsBytes(), limits.nanoCpus()));
    }
}
