package io.roboco.sandbox.plugin;

import io.roboco.sandbox.data.DataOutcome;
import io.roboco.sandbox.guard.AgentOperation;
import io.roboco.sandbox.lifecycle.Lifetimes;
import io.roboco.sandbox.lifecycle.SandboxBook;
import io.roboco.sandbox.manager.Admission;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.provision.ProvisionException;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.DurationText;
import io.roboco.sandbox.request.SandboxName;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sandboxes as records, besides the verb: create a named one (its credentials answered once, and held in memory
 * by the book for the data operations), delete, extend, list, run a data operation on one, and remove what has
 * expired (the janitor's chore and the operator's cleanup). Every state change is one conditional step in the
 * store, so an expiry and an extension (or a deletion) that race never both win.
 */
public final class Sandboxes {
    private static final Logger log = LoggerFactory.getLogger(Sandboxes.class);
    public static final String CREATE_VERB = "create_sandbox";
    public static final String DELETE_VERB = "delete_sandbox";
    public static final String EXTEND_VERB = "extend_sandbox";
    public static final String EXPIRE_VERB = "janitor_sweep";
    public static final String CLEANUP_VERB = "cleanup";

    private final SandboxPlugin plugin;
    private final SandboxBook book;

    public Sandboxes(SandboxPlugin plugin, SandboxBook book) {
        this.plugin = plugin;
        this.book = book;
    }

    /** A named sandbox to create, its shapes already validated (see the HTTP route). */
    public record CreateRequest(
            String owner,
            String project,
            List<String> services,
            Map<String, List<String>> extensions,
            String name,
            Duration ttl,
            Map<String, String> labels,
            String template) {
        public CreateRequest {
            services = services == null ? List.of() : List.copyOf(services);
            extensions = extensions == null ? Map.of() : Map.copyOf(extensions);
            name = name == null ? "" : name;
            labels = labels == null ? Map.of() : Map.copyOf(labels);
        }

        /** A request on the project's own seed (no per-call template). */
        public CreateRequest(
                String owner,
                String project,
                List<String> services,
                Map<String, List<String>> extensions,
                String name,
                Duration ttl,
                Map<String, String> labels) {
            this(owner, project, services, extensions, name, ttl, labels, null);
        }
    }

    /** What a create did. */
    public sealed interface CreateOutcome {
        /** The credentials are in {@code services} and nowhere else, ever. */
        record Created(SandboxRecord record, List<SandboxDecision.Grant> services) implements CreateOutcome {}

        /** Refused (a guard, a quota, a name in use) or invalid_state (capacity, provisioning); nothing was left behind. */
        record NotCreated(SandboxDecision decision) implements CreateOutcome {}
    }

    /** The operator's create (trusted with any owner): the guard chain's steps for the operator, then the sandbox's. */
    public CreateOutcome create(CreateRequest r) throws InterruptedException {
        long start = System.nanoTime();
        requireNamed(r);
        Optional<Project> found = plugin.store().findProject(r.project());
        return create(r, plugin.guards().admitOperator(r.project(), found), start);
    }

    /**
     * An agent's create: owner {@code r.owner()} is the agent, and the whole guard chain applies (role, flag, active task,
     * opted in, allowlist, handle), as for its verb set. The project is the agent's own; another is refused. Reached only
     * through the front door, {@link SandboxService#ensure} of a name other than default.
     */
    CreateOutcome createForAgent(CreateRequest r) throws InterruptedException {
        long start = System.nanoTime();
        requireNamed(r);
        GuardChain.Verdict verdict = plugin.guards().admit(r.owner(), AgentOperation.CREATE_NAMED);
        if (verdict instanceof GuardChain.Verdict.Passed passed
                && !passed.project().map(Project::id).orElse("").equals(r.project())) {
            verdict = new GuardChain.Verdict.Refused(new SandboxDecision.Refused(
                    "agent '" + r.owner() + "' works on project '"
                            + passed.project().map(Project::id).orElse("") + "', not '" + r.project() + "'",
                    false,
                    "not_allowed",
                    List.of()));
        }
        return create(r, verdict, start);
    }

    /** A created sandbox's name is a sandbox name other than the verb set's (its value type says so); it may be none. */
    private static void requireNamed(CreateRequest r) {
        if (!r.name().isEmpty()) {
            SandboxName.parseNamed("name", r.name());
        }
    }

    private CreateOutcome create(CreateRequest r, GuardChain.Verdict verdict, long start) throws InterruptedException {
        if (verdict instanceof GuardChain.Verdict.Refused refused) {
            return notCreated(r, refused.refusal(), start);
        }
        Optional<Project> found = ((GuardChain.Verdict.Passed) verdict).project();
        if (r.template() != null) {
            Optional<String> why =
                    TemplateSeeds.refusal(r.template(), found.get(), plugin.templates(), plugin.registry());
            if (why.isPresent()) {
                return notCreated(r, new SandboxDecision.Refused(why.get(), false, "not_allowed", List.of()), start);
            }
            found = found.map(p -> TemplateSeeds.seededWith(p, r.template(), plugin.registry()));
        }
        GuardChain.Checked checked = plugin.guards().request(r.owner(), found.get(), r.services(), r.extensions());
        if (checked instanceof GuardChain.Checked.Refused refused) {
            return notCreated(r, refused.refusal(), start);
        }
        SandboxRequest request = ((GuardChain.Checked.Admitted) checked).request();
        Project project = found.get();
        Lifetimes.Resolved ttl = book.lifetimes().resolve(project);
        if (r.ttl() != null && r.ttl().compareTo(ttl.ttlMax()) > 0) {
            throw new BadRequest("'ttl' " + DurationText.format(r.ttl()) + " exceeds the longest a sandbox of project "
                    + project.id() + " may live, " + DurationText.format(ttl.ttlMax())
                    + " (sandbox_ttl_max / ROBOCO_SANDBOX_TTL_MAX)");
        }
        List<String> services = request.asked();
        Admission.Decision decision = book.reserveNamed(r.owner(), project, services, r.name(), r.labels(), r.ttl());
        if (decision instanceof Admission.Decision.Denied denied) {
            return notCreated(r, SandboxService.denial(denied), start);
        }
        Admission.Decision.Admitted admitted = (Admission.Decision.Admitted) decision;
        AtomicReference<SandboxRecord> adopted = new AtomicReference<>();
        Map<String, ServiceInstance> started;
        try {
            started = plugin.manager()
                    .provisionDetached(request, SandboxManager.NAMED_KEY + admitted.sandboxId(), set -> {
                        SandboxRecord record = book.adoptNamed(admitted, set);
                        adopted.set(record);
                        plugin.vault().ifPresent(v -> v.sealSet(record.id(), record.owner(), set.values()));
                    });
        } catch (ProvisionException e) {
            book.abandonNamed(admitted);
            return notCreated(
                    r, new SandboxDecision.InvalidState(e.getMessage(), e.retryable(), "provisioning"), start);
        } catch (InterruptedException | RuntimeException e) {
            if (adopted.get() == null) {
                book.abandonNamed(admitted);
            }
            throw e;
        }
        SandboxRecord record = adopted.get();
        List<SandboxDecision.Grant> grants =
                services.stream().map(started::get).map(plugin::grant).toList();
        plugin.tell(
                new SandboxDecision.Granted(grants, false, record.id(), record.expires(), null, "cold"),
                System.nanoTime() - start);
        plugin.record(
                r.owner(),
                project.id(),
                CREATE_VERB,
                "granted",
                "sandbox " + record.id() + (record.name().isEmpty() ? "" : " '" + record.name() + "'")
                        + " created, expires " + record.expires(),
                services,
                start);
        return new CreateOutcome.Created(record, grants);
    }

    /**
     * Ends every live sandbox of {@code owner} on this instance left after its verb set's release (its agent was removed:
     * its named sandboxes), each audited under {@code verb}. Returns how many containers were removed.
     */
    public int endNamedOf(String owner, String verb) throws InterruptedException {
        int ended = 0;
        for (SandboxRecord record : book.list(new SandboxQuery(
                owner,
                null,
                Map.of(),
                EnumSet.of(SandboxState.LIVE),
                book.instance(),
                book.clock().instant()))) {
            long start = System.nanoTime();
            if (end(record, verb, false)) {
                ended += record.containers().size();
                plugin.record(
                        owner,
                        record.project(),
                        verb,
                        "deleted",
                        "sandbox " + record.id() + " ended with its agent; "
                                + record.containers().size() + " container(s) removed",
                        record.services(),
                        start);
            }
        }
        return ended;
    }

    /** What a delete found. */
    public enum Deletion {
        DELETED,
        ALREADY_DELETED,
        NOT_FOUND,
        OTHER_INSTANCE
    }

    /** Removes a sandbox's containers and marks it deleted; a verb set is dropped from the cache too (its next call gets a new one). */
    public Deletion delete(String id, String why) throws InterruptedException {
        long start = System.nanoTime();
        Optional<SandboxRecord> found = book.find(id);
        if (found.isEmpty()) {
            return Deletion.NOT_FOUND;
        }
        SandboxRecord record = found.get();
        if (record.deleted() != null) {
            return Deletion.ALREADY_DELETED;
        }
        if (!record.instance().equals(book.instance())) {
            return Deletion.OTHER_INSTANCE;
        }
        boolean done = end(record, why, false);
        if (done) {
            plugin.record(
                    record.owner(),
                    record.project(),
                    DELETE_VERB,
                    "deleted",
                    "sandbox " + record.id() + " deleted (" + why + "); "
                            + record.containers().size() + " container(s) removed",
                    record.services(),
                    start);
        }
        return done ? Deletion.DELETED : Deletion.ALREADY_DELETED;
    }

    /** Sets a live sandbox's expiry to now + {@code ttl}, never past its max from creation. */
    public SandboxRecord extend(String id, Duration ttl) {
        long start = System.nanoTime();
        SandboxRecord record = book.find(id).orElseThrow(() -> new NotFound("no sandbox '" + id + "'"));
        Instant now = book.clock().instant();
        if (record.state(now) != SandboxState.LIVE) {
            throw new Conflict("sandbox " + id + " is " + record.state(now).wire() + " (since "
                    + (record.deleted() != null ? record.deleted() : record.expires())
                    + "); it cannot be extended. Create a new one");
        }
        Instant expires = now.plus(ttl);
        if (expires.isAfter(record.maxExpires())) {
            Duration most = Duration.between(now, record.maxExpires());
            throw new BadRequest("'ttl' " + DurationText.format(ttl)
                    + " would end past this sandbox's max lifetime (until "
                    + record.maxExpires() + ", sandbox_ttl_max / ROBOCO_SANDBOX_TTL_MAX from its creation); at most "
                    + DurationText.format(Duration.ofSeconds(Math.max(1, most.toSeconds()))) + " is left");
        }
        SandboxRecord next = record.withExpires(expires);
        if (!book.store().updateSandbox(next)) {
            throw new Conflict("sandbox " + id + " was deleted meanwhile");
        }
        book.updated(next);
        plugin.record(
                record.owner(),
                record.project(),
                EXTEND_VERB,
                "extended",
                "sandbox " + id + " now expires " + expires,
                record.services(),
                start);
        return next;
    }

    /**
     * A data operation ({@code data.SandboxData#VERBS}) on sandbox {@code id}: an owner's verb set, or a named sandbox of
     * this instance whose credentials this process holds (from its create, or re-adopted after a restart).
     */
    public DataOutcome dataOperation(String id, String verb, String name) throws InterruptedException {
        SandboxRecord record = book.find(id).orElseThrow(() -> new NotFound("no sandbox '" + id + "'"));
        Instant now = book.clock().instant();
        if (record.state(now) != SandboxState.LIVE) {
            throw new Conflict("sandbox " + id + " is " + record.state(now).wire() + " (since "
                    + (record.deleted() != null ? record.deleted() : record.expires()) + "); " + verb
                    + " works on a live sandbox");
        }
        return plugin.dataOperation(record, verb, name, this::heldServices);
    }

    /**
     * Saves the Postgres database of live sandbox {@code id} as template {@code name} (see {@link SandboxPlugin#saveTemplate});
     * only this instance's own sandboxes: another instance's is a {@link Conflict}, an unknown id {@link NotFound}.
     */
    public DataOutcome saveTemplate(String id, String name, boolean replace) throws InterruptedException {
        SandboxRecord record = book.find(id).orElseThrow(() -> new NotFound("no sandbox '" + id + "'"));
        if (!record.instance().equals(book.instance())) {
            throw new Conflict("sandbox " + id + " belongs to instance " + record.instance()
                    + "; only this server's own sandboxes can" + " become its templates");
        }
        Instant now = book.clock().instant();
        if (record.state(now) != SandboxState.LIVE) {
            throw new Conflict(
                    "sandbox " + id + " is " + record.state(now).wire() + "; save_template works on a live sandbox");
        }
        return plugin.saveTemplate(record, name, replace, this::heldServices);
    }

    /**
     * The grants (credentials) of a live sandbox whose services this process holds (a verb set in the manager's cache, a
     * named sandbox made since the start or re-adopted): what its owner was answered, for answering the same request
     * again. Empty otherwise.
     */
    public Optional<List<SandboxDecision.Grant>> heldGrants(String id) {
        return heldServices(id)
                .map(services -> services.values().stream()
                        .sorted(Comparator.comparing(ServiceInstance::service))
                        .map(plugin::grant)
                        .toList());
    }

    /**
     * The one lookup of a live sandbox's services and credentials, whatever its kind: the registry of live sandboxes'
     * ({@link io.roboco.sandbox.manager.LiveSandboxes}; asked under the sandbox's lock, a deletion is either before or
     * after). Empty when the sandbox is not live or this process does not hold it.
     */
    public Optional<Map<String, ServiceInstance>> heldServices(String id) {
        Instant now = book.clock().instant();
        if (book.find(id).filter(r -> r.state(now) == SandboxState.LIVE).isEmpty()) {
            return Optional.empty();
        }
        return plugin.manager().services(id);
    }

    /** The owner's live sandbox named {@code name}, if it has one. */
    public Optional<SandboxRecord> live(String owner, String name) {
        return book
                .list(new SandboxQuery(
                        owner,
                        null,
                        Map.of(),
                        EnumSet.of(SandboxState.LIVE),
                        null,
                        book.clock().instant()))
                .stream()
                .filter(r -> r.name().equals(name))
                .findFirst();
    }

    public List<SandboxRecord> list(SandboxQuery query) {
        return book.list(query);
    }

    public Optional<SandboxRecord> find(String id) {
        return book.find(id);
    }

    /** This instance's expired sandboxes (optionally one owner's), oldest first. */
    public List<SandboxRecord> expired(String owner) {
        return book.list(new SandboxQuery(
                owner,
                null,
                Map.of(),
                EnumSet.of(SandboxState.EXPIRED),
                book.instance(),
                book.clock().instant()));
    }

    /**
     * Removes every expired sandbox of this instance (the janitor's chore) — or one owner's (cleanup) —
     * each with an {@code expired} audit record. Returns the ids removed.
     */
    public List<String> removeExpired(String owner, String verb) throws InterruptedException {
        List<String> removed = new ArrayList<>();
        for (SandboxRecord record : expired(owner)) {
            long start = System.nanoTime();
            if (end(record, "expired", true)) {
                removed.add(record.id());
                plugin.events().janitorRemoved("expired", record.containers().size());
                plugin.record(
                        record.owner(),
                        record.project(),
                        verb,
                        "expired",
                        "sandbox " + record.id() + " expired at " + record.expires() + "; "
                                + record.containers().size() + " container(s) removed",
                        record.services(),
                        start);
                log.info(
                        "sandbox {} of owner {} expired at {}; {} container(s) removed",
                        record.id(),
                        record.owner(),
                        record.expires(),
                        record.containers().size());
            }
        }
        return removed;
    }

    public SandboxBook book() {
        return book;
    }

    /**
     * Marks the record deleted (conditionally on its expiry when {@code onlyIfExpired}) and removes its containers, under
     * the sandbox's lock ({@link SandboxManager#lockKey}: a call or data operation under way finishes first, and none
     * starts after).
     */
    private boolean end(SandboxRecord record, String why, boolean onlyIfExpired) throws InterruptedException {
        Instant now = book.clock().instant();
        boolean ended = plugin.manager()
                .endIf(record, () -> book.store().markDeleted(record.id(), now, why, onlyIfExpired), onlyIfExpired);
        if (ended) {
            book.forgetContainers(record);
        }
        return ended;
    }

    private CreateOutcome notCreated(CreateRequest r, SandboxDecision decision, long start) {
        plugin.tell(decision, System.nanoTime() - start);
        String reason = decision instanceof SandboxDecision.Refused f
                ? f.reason()
                : ((SandboxDecision.InvalidState) decision).reason();
        plugin.record(
                r.owner(),
                r.project(),
                CREATE_VERB,
                decision instanceof SandboxDecision.Refused ? "refused" : "invalid_state",
                reason,
                r.services(),
                start);
        return new CreateOutcome.NotCreated(decision);
    }

    /** No sandbox by that id: HTTP 404. */
    public static final class NotFound extends RuntimeException {
        public NotFound(String message) {
            super(message, null, false, false);
        }
    }

    /** The sandbox is not in a state that allows this: HTTP 409. */
    public static final class Conflict extends RuntimeException {
        public Conflict(String message) {
            super(message, null, false, false);
        }
    }
}
