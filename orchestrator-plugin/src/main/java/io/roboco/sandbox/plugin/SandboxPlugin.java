package io.roboco.sandbox.plugin;

import io.roboco.sandbox.data.DataOutcome;
import io.roboco.sandbox.data.SandboxData;
import io.roboco.sandbox.data.TemplateSaving;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.guard.RoleManifest;
import io.roboco.sandbox.guard.Verbs;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.readopt.CredentialVault;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.AuditTrail;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    private final SandboxEvents events;
    private final Sandboxes sandboxes;
    private final SandboxService service;
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
        this.service = new SandboxService(registry, manager, store, chain, audit, events, data, sandboxes);
    }

    /**
     * The core's one front door: every operation on a sandbox (ensure, release, …) as a typed ask through the guard
     * chain, the capacity reservation and provisioning to one typed outcome and one audit record. The verbs, the MCP
     * tools, the HTTP routes and the pages are adapters in front of it.
     */
    public SandboxService service() {
        return service;
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
        return service.ensure(new SandboxService.Ensure(slug, services, extensions, labels, template), agent);
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
     * {@link #saveTemplate(String, String, boolean)} on the sandbox of {@code record} (see {@link Sandboxes#saveTemplate}),
     * whatever its kind: from the services {@code held} answers for it, under its lock.
     */
    DataOutcome saveTemplate(
            SandboxRecord record,
            String name,
            boolean replace,
            Function<String, Optional<Map<String, ServiceInstance>>> held)
            throws InterruptedException {
        long start = System.nanoTime();
        DataOutcome outcome = templateSaving.saveOn(record, name, replace, held);
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

    /** Counts what a decision was, for metrics (the verb layer tells its own role refusals here). */
    public void tell(SandboxDecision decision, long nanos) {
        service.tell(decision, nanos);
    }

    /** Where handed-out credentials are sealed, when they are (re-adoption on, see {@code readopt.Readoption}). */
    Optional<CredentialVault> vault() {
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
     * A data operation on the sandbox of {@code record} (see {@link Sandboxes#dataOperation}), whatever its kind: on the
     * services {@code held} answers for it, under its lock. Audited under its owner, naming the sandbox.
     */
    DataOutcome dataOperation(
            SandboxRecord record,
            String verb,
            String name,
            Function<String, Optional<Map<String, ServiceInstance>>> held)
            throws InterruptedException {
        long start = System.nanoTime();
        DataOutcome outcome = data.runOn(record, verb, name, held);
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
        return ((SandboxService.ReleaseOutcome.Released) service.release(SandboxService.Release.after(slug, verb)))
                .removed();
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
        return service.grant(instance);
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
