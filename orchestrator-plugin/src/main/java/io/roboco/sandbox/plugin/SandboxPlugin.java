package io.roboco.sandbox.plugin;

import io.roboco.sandbox.data.DataOutcome;
import io.roboco.sandbox.data.SandboxData;
import io.roboco.sandbox.data.TemplateSaving;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.guard.AgentOperation;
import io.roboco.sandbox.guard.RoleManifest;
import io.roboco.sandbox.guard.Verbs;
import io.roboco.sandbox.manager.Admission;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.manager.EnsureOutcome;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.readopt.CredentialVault;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.AuditTrail;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.ProjectForm;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.ServiceLimits;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embeddable front door: {@code request_sandbox} (guard chain, then the manager) and
 * {@code release_sandbox}, each recorded in the audit trail without a credential.
 */
public final class SandboxPlugin implements AutoCloseable {
    public static final String REQUEST_VERB = Verbs.REQUEST_SANDBOX;
    public static final String RELEASE_VERB = Verbs.RELEASE_SANDBOX;
    private static final Logger log = LoggerFactory.getLogger(SandboxPlugin.class);

    private final EngineRegistry registry;
    private final SandboxManager manager;
    private final SettingsStore store;
    private final AuditTrail audit;
    private final SandboxData data;
    private final boolean flagEffective;
    private final Clock clock;
    private final GuardChain chain;
    private final TemplateSaving templateSaving;
    /** The template an agent's live verb set was made from, when it was (per-call templates). */
    private final Map<String, String> templateOf = new ConcurrentHashMap<>();

    private final SandboxEvents events;
    private final Sandboxes sandboxes;
    private final CredentialVault vault;
    private final PluginWiring wiring;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** A plugin without sandbox records (no TTL, quota or named sandboxes); {@link #builder()} wires the whole product. */
    public SandboxPlugin(
            EngineRegistry registry,
            SandboxManager manager,
            SettingsStore store,
            boolean flagEffective,
            OrchestratorHandle handle,
            Clock clock) {
        this(registry, manager, store, flagEffective, handle, clock, PluginWiring.none());
    }

    /** With what the builder wired around the core ({@link PluginWiring}): records, sealing, events, and closing. */
    SandboxPlugin(
            EngineRegistry registry,
            SandboxManager manager,
            SettingsStore store,
            boolean flagEffective,
            OrchestratorHandle handle,
            Clock clock,
            PluginWiring wiring) {
        this.wiring = wiring;
        this.events = wiring.events();
        this.vault = wiring.vault();
        this.registry = registry;
        this.manager = manager;
        this.store = store;
        this.audit = new AuditTrail(store, clock);
        this.data = new SandboxData(manager, store, clock);
        this.flagEffective = flagEffective;
        this.clock = clock;
        this.templateSaving = new TemplateSaving(manager, clock);
        this.chain = new GuardChain(
                RoleManifest.defaults(),
                store,
                flagEffective,
                handle,
                new Guards(registry, manager.provisioner().settings(), manager.provisioner()::templates));
        this.sandboxes = wiring.book() == null ? null : new Sandboxes(this, wiring.book());
    }

    /** The front door for an embedding orchestrator: sensible defaults, one required setting (the instance id). */
    public static SandboxPluginBuilder builder() {
        return new SandboxPluginBuilder();
    }

    /**
     * The verb. {@code services} null or empty means the project's whole set; {@code extensions}
     * maps a service to per-call features on top of the project's standing set.
     */
    public SandboxDecision requestSandbox(String slug, List<String> services, Map<String, List<String>> extensions)
            throws InterruptedException {
        return requestSandbox(slug, store.findAgent(slug), services, extensions);
    }

    /** The verb, for a caller that has already looked the agent up in this plugin's store (no second read). */
    public SandboxDecision requestSandbox(
            String slug, Optional<Agent> agent, List<String> services, Map<String, List<String>> extensions)
            throws InterruptedException {
        return requestSandbox(slug, agent, services, extensions, null);
    }

    /** The verb with labels for the agent's sandbox record (already validated; null keeps the record's labels). */
    public SandboxDecision requestSandbox(
            String slug,
            Optional<Agent> agent,
            List<String> services,
            Map<String, List<String>> extensions,
            Map<String, String> labels)
            throws InterruptedException {
        return requestSandbox(slug, agent, services, extensions, labels, null);
    }

    /**
     * The verb with a per-call {@code template} (null: the project's seed): a new sandbox starts from that template of
     * the project's own. A live sandbox made otherwise is not re-made: the call is refused, saying to release it first.
     */
    public SandboxDecision requestSandbox(
            String slug,
            Optional<Agent> agent,
            List<String> services,
            Map<String, List<String>> extensions,
            Map<String, String> labels,
            String template)
            throws InterruptedException {
        long start = System.nanoTime();
        List<String> asked = services == null ? List.of() : List.copyOf(new LinkedHashSet<>(services));
        Map<String, List<String>> perCall = extensions == null ? Map.of() : extensions;
        String projectId = agent.map(Agent::project).orElse("");

        long looked = System.nanoTime();
        SandboxDecision decision = decide(slug, agent, asked, perCall, labels, template);
        long decided = System.nanoTime();
        tell(decision, decided - start);
        List<String> audited = decision instanceof SandboxDecision.Granted g
                ? g.sandboxes().stream().map(SandboxDecision.Grant::service).toList()
                : asked;
        audit(slug, projectId, REQUEST_VERB, decision, audited, start);
        if (log.isDebugEnabled()) {
            log.debug(
                    "request_sandbox {}: agent lookup {} us, guards+ensure {} us, audit {} us",
                    slug,
                    (looked - start) / 1000,
                    (decided - looked) / 1000,
                    (System.nanoTime() - decided) / 1000);
        }
        return decision;
    }

    private SandboxDecision decide(
            String slug,
            Optional<Agent> agent,
            List<String> asked,
            Map<String, List<String>> perCall,
            Map<String, String> labels,
            String template)
            throws InterruptedException {
        GuardChain.Verdict verdict = chain.admit(slug, agent, AgentOperation.REQUEST);
        if (verdict instanceof GuardChain.Verdict.Refused refused) {
            return refused.refusal();
        }
        Optional<Project> project = ((GuardChain.Verdict.Passed) verdict).project();
        if (template != null) {
            Optional<String> why = TemplateSeeds.refusal(template, project.get(), templates());
            if (why.isEmpty() && manager.find(slug).isPresent() && !template.equals(templateOf.get(slug))) {
                why = Optional.of("your sandbox " + manager.find(slug).get().id()
                        + " is live and was not made from template '" + template
                        + "'; a template seeds a new sandbox: call release_sandbox first, then request_sandbox(template=\""
                        + template + "\")");
            }
            if (why.isPresent()) {
                return new SandboxDecision.Refused(why.get(), false, "not_allowed", List.of());
            }
            project = project.map(p -> TemplateSeeds.seededWith(p, template));
        }
        GuardChain.Checked checked = chain.request(slug, project.get(), asked, perCall);
        if (checked instanceof GuardChain.Checked.Refused refused) {
            return refused.refusal();
        }
        SandboxRequest request = ((GuardChain.Checked.Admitted) checked).request();
        SandboxDecision decision = decision(manager.ensure(request, labels), this::grant);
        if (decision instanceof SandboxDecision.Granted g && !g.cacheHit()) {
            if (template == null) {
                templateOf.remove(slug);
            } else {
                templateOf.put(slug, template);
            }
        }
        return decision;
    }

    /** The verb a template's deletion is audited under. */
    public static final String DELETE_TEMPLATE_VERB = "delete_template";

    /** The verb an operator's copy of a template into another project is audited under. */
    public static final String COPY_TEMPLATE_VERB = "copy_template";

    /**
     * Deletes template {@code name} of {@code project} (its dump and metadata), audited under
     * {@value #DELETE_TEMPLATE_VERB} with {@code by} as the actor; false when there was none.
     */
    public boolean deleteTemplate(String project, String name, String by) throws IOException {
        long start = System.nanoTime();
        boolean deleted = templates().delete(project, name);
        if (deleted) {
            record(
                    by,
                    project,
                    DELETE_TEMPLATE_VERB,
                    "deleted",
                    "template '" + name + "' deleted",
                    List.of("postgres"),
                    start);
        }
        return deleted;
    }

    /**
     * Copies template {@code name} of project {@code from} into project {@code to} as {@code as} (null: the same name):
     * the operator's way of sharing a template, since each project sees only its own. Audited under
     * {@value #COPY_TEMPLATE_VERB} in the receiving project; the caps are the receiving project's.
     */
    public TemplateInfo copyTemplate(String from, String name, String to, String as, boolean replace, String by)
            throws Exception {
        long start = System.nanoTime();
        TemplateInfo copied = templates().copy(from, name, to, as, replace);
        record(
                by,
                to,
                COPY_TEMPLATE_VERB,
                "granted",
                "template '" + name + "' of project '" + from + "' copied as '" + copied.name() + "'",
                List.of("postgres"),
                start);
        return copied;
    }

    /**
     * Starts filling {@code project}'s seeded warm pools now ({@code ROBOCO_SANDBOX_POOL_SEEDED}), so its first sandbox
     * is a claim too; a changed seed discards the old pool's ready containers here. Call after the project is saved,
     * and for every project at start. Returns how many pools are filling; never throws.
     */
    public int primeSeededPools(Project project) {
        return new SeededPoolPriming(registry, manager).prime(project);
    }

    /** Where templates are kept ({@link TemplateStore#none()} when the plugin keeps none). */
    public TemplateStore templates() {
        return manager.provisioner().templates();
    }

    /**
     * Saves the postgres database of the owner's verb sandbox as template {@code name} (a dump plus its metadata),
     * audited as {@value TemplateSaving#SAVE_TEMPLATE}; with {@code replace} a template of that name is replaced, without
     * it the name must be new.
     */
    public DataOutcome saveTemplate(String owner, String name, boolean replace) throws InterruptedException {
        long start = System.nanoTime();
        String project = projectOf(owner);
        return auditSave(owner, project, name, templateSaving.save(owner, project, name, replace), start);
    }

    /**
     * {@link #saveTemplate(String, String, boolean)} on the sandbox of {@code record} (see {@link Sandboxes#saveTemplate}): a
     * verb set's is its owner's set; a named sandbox's the services {@code held} answers for it.
     */
    DataOutcome saveTemplate(
            SandboxRecord record,
            String name,
            boolean replace,
            Function<String, Optional<Map<String, ServiceInstance>>> held)
            throws InterruptedException {
        long start = System.nanoTime();
        DataOutcome outcome = record.kind() == SandboxRecord.Kind.DEFAULT
                ? templateSaving.save(record.owner(), record.project(), name, replace)
                : templateSaving.saveNamed(record.id(), record.project(), name, replace, held);
        return auditSave(record.owner(), record.project(), name, outcome, start);
    }

    private DataOutcome auditSave(String owner, String project, String name, DataOutcome outcome, long start) {
        String verb = TemplateSaving.SAVE_TEMPLATE;
        if (outcome instanceof DataOutcome.Done) {
            record(owner, project, verb, "granted", verb + " '" + name + "'", List.of("postgres"), start);
        } else if (outcome instanceof DataOutcome.Refused r) {
            record(owner, project, verb, "refused", r.reason(), List.of("postgres"), start);
        } else if (outcome instanceof DataOutcome.Failed f) {
            record(owner, project, verb, "invalid_state", f.reason(), List.of("postgres"), start);
        }
        return outcome;
    }

    /** The one guard chain every road asks (see {@link GuardChain}). */
    public GuardChain guards() {
        return chain;
    }

    /** The decision for a manager outcome (shared with named sandboxes' creation). */
    static SandboxDecision decision(EnsureOutcome outcome, Function<ServiceInstance, SandboxDecision.Grant> grant) {
        if (outcome instanceof EnsureOutcome.Ready ready) {
            return new SandboxDecision.Granted(
                    ready.services().stream().map(grant).toList(),
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
        return new SandboxDecision.InvalidState(failed.reason(), failed.retryable(), "provisioning");
    }

    static SandboxDecision denial(Admission.Decision.Denied d) {
        return d.refusal()
                ? new SandboxDecision.Refused(d.reason(), d.retryable(), d.code(), d.ownerSandboxes())
                : new SandboxDecision.InvalidState(d.reason(), d.retryable(), d.code());
    }

    /** Counts what a decision was, for metrics (the verb layer tells its own role refusals here). */
    public void tell(SandboxDecision decision, long nanos) {
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

    /** Where handed-out credentials are sealed, when they are (re-adoption on, see {@code readopt.Readoption}). */
    public Optional<CredentialVault> vault() {
        return Optional.ofNullable(vault);
    }

    /**
     * The plugin's audit trail, the one place audit records are made (a record the store refuses is kept and written
     * later): every road that audits besides the plugin's own (the verbs, the MCP gate, the janitor) writes through it.
     */
    public AuditTrail audit() {
        return audit;
    }

    /** The record operations (named sandboxes, deletion, extension, cleanup); empty for a plugin made without records. */
    public Optional<Sandboxes> sandboxes() {
        return Optional.ofNullable(sandboxes);
    }

    public SandboxEvents events() {
        return events;
    }

    /**
     * A data operation ({@link SandboxData#VERBS}: snapshot_schema, diff_schema, checkpoint_sandbox, rewind_sandbox) on
     * the agent's sandbox, audited like the verbs (never with a credential).
     */
    public DataOutcome dataOperation(String slug, String verb, String name) throws InterruptedException {
        long start = System.nanoTime();
        DataOutcome outcome = data.run(slug, verb, name);
        auditData(slug, projectOf(slug), verb, name, "", outcome, start);
        return outcome;
    }

    /**
     * A data operation on the sandbox of {@code record} (see {@link Sandboxes#dataOperation}): a verb set's runs on its
     * owner's set while it is that one; a named sandbox's on the services {@code held} answers for it. Audited under its
     * owner, naming the sandbox.
     */
    DataOutcome dataOperation(
            SandboxRecord record,
            String verb,
            String name,
            Function<String, Optional<Map<String, ServiceInstance>>> held)
            throws InterruptedException {
        long start = System.nanoTime();
        DataOutcome outcome = record.kind() == SandboxRecord.Kind.DEFAULT
                ? data.run(record.owner(), record.id(), verb, name)
                : data.runNamed(record.id(), verb, name, held);
        auditData(record.owner(), record.project(), verb, name, " on sandbox " + record.id(), outcome, start);
        return outcome;
    }

    private void auditData(
            String owner, String project, String verb, String name, String where, DataOutcome outcome, long start) {
        if (outcome instanceof DataOutcome.Done) {
            record(owner, project, verb, "granted", verb + " '" + name + "'" + where, List.of("postgres"), start);
        } else if (outcome instanceof DataOutcome.Refused r) {
            record(owner, project, verb, "refused", r.reason(), List.of("postgres"), start);
        } else if (outcome instanceof DataOutcome.Failed f) {
            record(owner, project, verb, "invalid_state", f.reason(), List.of("postgres"), start);
        }
    }

    /** Tears the agent's sandbox down; never throws. {@code verb} names what triggered it, for the audit. */
    public int releaseSandbox(String slug, String verb) {
        long start = System.nanoTime();
        String project = projectOf(slug);
        Set<String> services =
                manager.find(slug).map(e -> e.services().keySet()).orElse(Set.of());
        try {
            int removed = manager.release(slug);
            data.forget(slug);
            templateOf.remove(slug);
            record(
                    slug,
                    project,
                    verb,
                    "released",
                    removed + " container(s) removed",
                    List.copyOf(new TreeSet<>(services)),
                    start);
            return removed;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            record(slug, project, verb, "invalid_state", "interrupted while releasing", List.copyOf(services), start);
            return 0;
        } catch (RuntimeException e) {
            log.warn("release of agent {}'s sandbox failed: {}", slug, e.getMessage());
            record(
                    slug,
                    project,
                    verb,
                    "invalid_state",
                    "release failed: " + e.getMessage(),
                    List.copyOf(services),
                    start);
            return 0;
        }
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

    /** The services an agent of this project may request; empty when the flag is off or the project has none. */
    public List<String> servicesAvailable(String projectId) {
        if (!flagEffective || projectId == null) {
            return List.of();
        }
        return store.findProject(projectId).map(Project::services).orElse(List.of());
    }

    public boolean flagEffective() {
        return flagEffective;
    }

    public SandboxManager manager() {
        return manager;
    }

    public EngineRegistry registry() {
        return registry;
    }

    public SettingsStore store() {
        return store;
    }

    /** The operator's narrow view (what the dashboard's pages may read and do). */
    public OperatorConsole console() {
        return new PluginConsole(this);
    }

    public Optional<AgentSandbox> sandboxOf(String slug) {
        return manager.find(slug);
    }

    /**
     * Stops the plugin: its state becomes STOPPING (new requests are refused as retryable); the extensions the builder
     * started close, newest first; provisioning under way ends (bounded) and new calls are refused; the warm pool stops;
     * every live sandbox is released (unless re-adoption keeps them for the next start) and containers still being
     * started are removed; the warm pool's idle containers are always removed. Then the manager, the audit trail and what
     * the builder made itself close. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        wiring.stopping().run();
        boolean keep = wiring.keepsSandboxes();
        if (wiring.announces()) {
            log.info(
                    keep
                            ? "stopping: new requests are refused as retryable; {} live sandbox(es) are kept for the next start to re-adopt"
                            : "stopping: new requests are refused as retryable; {} live sandbox(es) will be released",
                    manager.live().size());
        }
        List<AutoCloseable> extensions = new ArrayList<>(wiring.extensions());
        Collections.reverse(extensions);
        extensions.forEach(extension -> quietly("close " + extension, extension));
        quietly("wait for provisioning under way", this::drain);
        manager.pool().ifPresent(pool -> quietly("remove warm pool", pool)); // nothing idle outlives a stop
        String verb = wiring.releaseOnCloseVerb();
        if (!keep && verb != null) {
            for (AgentSandbox sandbox : manager.live()) {
                releaseSandbox(sandbox.agent(), verb);
            }
        }
        quietly("remove containers still starting", manager::removeUnsettled);
        if (wiring.announces()) {
            log.info(
                    keep
                            ? "stopped: {} sandbox(es) kept for re-adoption (ROBOCO_SANDBOX_READOPT=true), idle warm pool removed"
                            : "stopped: sandboxes released, warm pool removed",
                    manager.live().size());
        }
        manager.close();
        audit.flush();
        wiring.owned()
                .forEach(resource -> quietly("close " + resource.getClass().getSimpleName(), resource));
    }

    /** How long {@link #close} waits for provisioning calls under way before removing what they started. */
    public static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(20);

    private void drain() throws InterruptedException {
        int left = manager.drain(DRAIN_TIMEOUT);
        if (left > 0) {
            log.warn(
                    "{} provisioning call(s) still under way after {} s; their containers are removed",
                    left,
                    DRAIN_TIMEOUT.toSeconds());
        }
    }

    private static void quietly(String what, AutoCloseable step) {
        try {
            step.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("shutdown step '{}' failed: {}: {}", what, e.getClass().getSimpleName(), e.getMessage());
        }
    }

    SandboxDecision.Grant grant(ServiceInstance instance) {
        Engine engine = registry.require(instance.service());
        return new SandboxDecision.Grant(
                instance.service(),
                engine.env(instance.endpoint(), instance.credentials()),
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

    private void audit(
            String slug, String project, String verb, SandboxDecision decision, List<String> services, long start) {
        if (decision instanceof SandboxDecision.Granted g) {
            String how = g.cacheHit() ? "cache hit" : "provisioned (" + g.path() + ")";
            if (g.sandboxId() != null && !g.sandboxId().isEmpty()) {
                how += ", sandbox " + g.sandboxId();
            }
            if (g.expiredPrevious() != null) {
                how += "; the previous sandbox " + g.expiredPrevious() + " had expired";
            }
            record(slug, project, verb, "granted", how, services, start);
        } else if (decision instanceof SandboxDecision.Refused r) {
            record(slug, project, verb, "refused", r.reason(), services, start);
        } else if (decision instanceof SandboxDecision.InvalidState s) {
            record(slug, project, verb, "invalid_state", s.reason(), services, start);
        }
    }

    /** Appends an audit record; never throws (a store fault is logged). {@code start} is a System.nanoTime. */
    void record(
            String slug,
            String project,
            String verb,
            String decision,
            String reason,
            List<String> services,
            long start) {
        audit.record(slug, project, verb, decision, reason, services, start);
    }
}
