package io.roboco.sandbox.data;

import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.engine.DataDiffs;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.NameShape;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SchemaDiff;
import io.roboco.sandbox.engine.SchemaDigest;
import io.roboco.sandbox.engine.SchemaSnapshots;
import io.roboco.sandbox.guard.Verbs;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.request.SnapshotName;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SnapshotStore;
import io.roboco.sandbox.settings.StoredSnapshot;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Data operations on a sandbox: schema snapshots and diffs, checkpoint and rewind and data diffs against a checkpoint,
 * each on the services whose engine offers it ({@link Engine#schemaSnapshots}, {@link Engine#checkpoints},
 * {@link Engine#dataDiffs}; {@link Offered}). On an owner's verb set
 * each runs under the owner's lock (never overlapping its request_sandbox or release) on the set the manager holds;
 * on a named sandbox under that sandbox's lock ({@link #lockKey}), which its deletion takes too.
 */
public final class SandboxData {
    public static final String SNAPSHOT_SCHEMA = Verbs.SNAPSHOT_SCHEMA;
    public static final String DIFF_SCHEMA = Verbs.DIFF_SCHEMA;
    public static final String CHECKPOINT = Verbs.CHECKPOINT_SANDBOX;
    public static final String REWIND = Verbs.REWIND_SANDBOX;
    public static final String DIFF_DATA = Verbs.DIFF_DATA;
    public static final Set<String> VERBS = Set.of(SNAPSHOT_SCHEMA, DIFF_SCHEMA, CHECKPOINT, REWIND, DIFF_DATA);
    static final String SNAPSHOT_NOTE =
            "a snapshot is an explicit before-state taken when you asked, not refreshed truth;"
                    + " take a new one to move the baseline";
    static final String SESSIONS_NOTE =
            "your open sessions on the database were closed (Postgres copies only an unconnected"
                    + " database); reconnect with the same ROBOCO_TEST_DB_URL";

    /** A sandbox keeps at most this many snapshots; saving a name again replaces it. */
    public static final int MAX_SNAPSHOTS = 32;

    private static final Logger log = LoggerFactory.getLogger(SandboxData.class);

    private final SandboxManager manager;
    private final SnapshotStore snapshots;
    private final Clock clock;

    /** @param snapshots where snapshots are kept: the settings store, with the sandbox records they belong to */
    public SandboxData(SandboxManager manager, SnapshotStore snapshots, Clock clock) {
        this.manager = manager;
        this.snapshots = snapshots;
        this.clock = clock;
    }

    /** Runs one of {@link #VERBS} with a snapshot or checkpoint {@code name} on the verb set of owner {@code sandbox}. */
    public DataOutcome run(String sandbox, String verb, String name) throws InterruptedException {
        return run(sandbox, null, verb, name);
    }

    /**
     * {@link #run(String, String, String)} on the owner's verb set only while it is the set {@code setId} (a sandbox id
     * named by an operator); null for whichever set the owner has.
     */
    public DataOutcome run(String owner, String setId, String verb, String name) throws InterruptedException {
        Optional<DataOutcome> bad = check(verb, name);
        if (bad.isPresent()) {
            return bad.get();
        }
        return guarded(
                verb,
                () -> manager.withAgent(owner, found -> {
                    if (setId != null
                            && found.isPresent()
                            && !setId.equals(found.get().id())) {
                        return new DataOutcome.Refused("sandbox " + setId + " is no longer " + owner
                                + "'s live set (it has " + found.get().id() + " now)");
                    }
                    Map<String, ServiceInstance> services =
                            found.map(AgentSandbox::services).orElse(null);
                    String key = found.map(AgentSandbox::id)
                            .filter(id -> !id.isEmpty())
                            .orElse(unrecordedKey(owner));
                    return operate(
                            key, verb, name, services, "no sandbox for '" + owner + "'; call request_sandbox first");
                }));
    }

    /**
     * Runs one of {@link #VERBS} on the named sandbox {@code id}, whose services {@code held} answers while the sandbox is
     * live and this process holds its credentials (asked under the sandbox's lock, which its deletion takes too).
     */
    public DataOutcome runNamed(
            String id, String verb, String name, Function<String, Optional<Map<String, ServiceInstance>>> held)
            throws InterruptedException {
        return runHeld(lockKey(id), id, "named", verb, name, held);
    }

    /**
     * Runs one of {@link #VERBS} on sandbox {@code record}, whatever its kind, under its lock
     * ({@link SandboxManager#lockKey}, which its end takes too), on the services {@code held} answers while it is live
     * and this process holds its credentials (the registry of live sandboxes).
     */
    public DataOutcome runOn(
            SandboxRecord record,
            String verb,
            String name,
            Function<String, Optional<Map<String, ServiceInstance>>> held)
            throws InterruptedException {
        return runHeld(
                SandboxManager.lockKey(record), record.id(), record.kind().wire(), verb, name, held);
    }

    private DataOutcome runHeld(
            String lock,
            String id,
            String kind,
            String verb,
            String name,
            Function<String, Optional<Map<String, ServiceInstance>>> held)
            throws InterruptedException {
        Optional<DataOutcome> bad = check(verb, name);
        if (bad.isPresent()) {
            return bad.get();
        }
        return guarded(
                verb,
                () -> manager.withAgent(
                        lock,
                        ignored -> operate(
                                id,
                                verb,
                                name,
                                held.apply(id).orElse(null),
                                "this server does not hold the credentials of " + kind + " sandbox " + id
                                        + " (it is no longer live, or it was made before a"
                                        + " restart that did not re-adopt it: ROBOCO_SANDBOX_READOPT=false or an unusable key); create a new one")));
    }

    /** The lock a named sandbox's data operations and its deletion share ({@link SandboxManager#lockKey}). */
    public static String lockKey(String namedId) {
        return SandboxManager.NAMED_KEY + namedId;
    }

    /**
     * The owner's verb set was released: the snapshots of a set without a record go with it (a recorded set's went with
     * its record, in the store's same step).
     */
    public void forget(String owner) {
        try {
            snapshots.deleteSnapshots(unrecordedKey(owner));
        } catch (RuntimeException e) {
            // Never fails a release: the snapshots stay until the next release of the owner's set.
            log.warn("could not delete the schema snapshots of {}'s released sandbox ({})", owner, e.getMessage());
        }
    }

    /** Where the snapshots of an owner's verb set are kept when the manager keeps no records (no sandbox id). */
    private static String unrecordedKey(String owner) {
        return "agent:" + owner;
    }

    private static Optional<DataOutcome> check(String verb, String name) {
        if (!VERBS.contains(verb)) {
            throw new IllegalArgumentException("not a data operation: " + verb);
        }
        NameShape shape = verb.contains("schema") ? SnapshotName.SHAPE : CheckpointName.SHAPE;
        return shape.matches(name) ? Optional.empty() : Optional.of(new DataOutcome.Refused(shape.malformed(name)));
    }

    /** The work of one operation, run under the sandbox's lock. */
    @FunctionalInterface
    private interface Locked {
        DataOutcome run() throws Exception;
    }

    private DataOutcome guarded(String verb, Locked work) throws InterruptedException {
        try {
            return work.run();
        } catch (InterruptedException e) {
            throw e;
        } catch (RedactedFailure e) {
            return new DataOutcome.Failed(
                    verb + " failed: " + e.getMessage() + "; nothing was changed, try again", true);
        } catch (Exception e) {
            return new DataOutcome.Failed(
                    verb + " failed: " + e.getClass().getSimpleName() + ": " + e.getMessage(), true);
        }
    }

    private DataOutcome operate(
            String key, String verb, String name, Map<String, ServiceInstance> services, String none) throws Exception {
        if (services == null) {
            return new DataOutcome.Refused(none);
        }
        return switch (verb) {
            case SNAPSHOT_SCHEMA ->
                on(services, verb, Engine::schemaSnapshots, schemas -> snapshot(key, name, schemas));
            case DIFF_SCHEMA -> on(services, verb, Engine::schemaSnapshots, schemas -> diff(key, name, schemas));
            case CHECKPOINT -> wholeSandbox(services, verb, name);
            case DIFF_DATA -> diffData(services, verb, name);
            default -> wholeSandbox(services, verb, name);
        };
    }

    /** One operation on the sandbox's service whose engine offers {@code capability}. */
    @FunctionalInterface
    private interface Operation<T> {
        DataOutcome run(Offered<T> offered) throws Exception;
    }

    /**
     * Runs {@code work} on the service of {@code services} whose engine offers {@code capability}; refused, naming the
     * engines that would, when none does. A database failure's message loses the service's passwords.
     */
    private <T> DataOutcome on(
            Map<String, ServiceInstance> services,
            String verb,
            Function<Engine, Optional<T>> capability,
            Operation<T> work)
            throws Exception {
        Optional<Offered<T>> offered = Offered.in(registry(), services, capability);
        if (offered.isEmpty()) {
            return noService(verb, capability);
        }
        try {
            return work.run(offered.get());
        } catch (SQLException e) {
            throw new RedactedFailure(offered.get().redact(e.getMessage()));
        }
    }

    /** The refusal when the sandbox has no service whose engine offers {@code capability}: it names the ones that would. */
    private DataOutcome noService(String verb, Function<Engine, ? extends Optional<?>> capability) {
        if (registry().offering(capability).isEmpty()) {
            return new DataOutcome.Refused("no engine of this server offers " + verb);
        }
        String services = registry().namesOffering(capability);
        return new DataOutcome.Refused("the sandbox has no " + services + " service; " + verb + " works on "
                + Offered.engines(registry(), capability) + " (opt the project into " + services + ")");
    }

    private EngineRegistry registry() {
        return manager.registry();
    }

    /** A database failure whose message has had the sandbox's passwords taken out. */
    private static final class RedactedFailure extends Exception {
        RedactedFailure(String message) {
            super(message, null, false, false);
        }
    }

    // --- operations --------------------------------------------------------------------------

    private DataOutcome snapshot(String sandbox, String name, Offered<SchemaSnapshots> schemas) throws Exception {
        SchemaDigest digest = schemas.feature().snapshot(schemas.target());
        StoredSnapshot snapshot = new StoredSnapshot(sandbox, name, clock.instant(), digest);
        if (!snapshots.saveSnapshot(snapshot, MAX_SNAPSHOTS)) {
            return new DataOutcome.Refused("this sandbox already holds " + MAX_SNAPSHOTS + " snapshots; reuse a name ("
                    + String.join(", ", snapshots.snapshotNames(sandbox)) + ")");
        }
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("name", name);
        evidence.put("taken", snapshot.taken().toString());
        evidence.put("format_version", digest.formatVersion());
        evidence.put("postgres_version", digest.postgresVersion());
        evidence.put("schemas", digest.schemas());
        evidence.put("counts", digest.counts());
        evidence.put("digest", digest.digest());
        evidence.put("note", SNAPSHOT_NOTE);
        return new DataOutcome.Done(evidence);
    }

    private DataOutcome diff(String sandbox, String name, Offered<SchemaSnapshots> schemas) throws Exception {
        Optional<StoredSnapshot> before = snapshots.findSnapshot(sandbox, name);
        if (before.isEmpty()) {
            List<String> names = snapshots.snapshotNames(sandbox);
            return new DataOutcome.Refused("no snapshot '" + name + "' of this sandbox; there are: "
                    + (names.isEmpty() ? "none (take one with snapshot_schema)" : String.join(", ", names)));
        }
        SchemaDigest now = schemas.feature().snapshot(schemas.target());
        SchemaDiff diff;
        try {
            diff = SchemaDiff.between(before.get().digest(), now);
        } catch (IllegalArgumentException e) {
            return new DataOutcome.Refused(e.getMessage());
        }
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("name", name);
        evidence.put("since", before.get().taken().toString());
        evidence.put("empty", diff.isEmpty());
        evidence.put("added", refs(diff.added()));
        evidence.put("removed", refs(diff.removed()));
        List<Map<String, Object>> changed = new ArrayList<>();
        for (SchemaDiff.Change c : diff.changed()) {
            Map<String, Object> attributes = new LinkedHashMap<>();
            c.attributes().forEach((k, v) -> {
                Map<String, Object> values = new LinkedHashMap<>();
                values.put("before", v.before());
                values.put("after", v.after());
                attributes.put(k, values);
            });
            changed.add(Map.of("kind", c.kind(), "name", c.name(), "changes", attributes));
        }
        evidence.put("changed", changed);
        evidence.put("digest_before", before.get().digest().digest());
        evidence.put("digest_now", now.digest());
        evidence.put("note", SNAPSHOT_NOTE);
        return new DataOutcome.Done(evidence);
    }

    /**
     * Checkpoint or rewind of every service of the sandbox whose engine offers checkpoints, under one name
     * ({@link SandboxCheckpoints}); the live sessions the plugin holds are reopened after (a rewind may have closed them).
     */
    private DataOutcome wholeSandbox(Map<String, ServiceInstance> services, String verb, String name) {
        SandboxCheckpoints all = SandboxCheckpoints.of(
                registry(),
                services,
                instance -> new ProbeTarget(
                        instance.endpoint(),
                        instance.credentials(),
                        () -> true,
                        () -> "",
                        manager.provisioner().execIn(instance)));
        if (all.isEmpty()) {
            return noService(verb, Engine::checkpoints);
        }
        DataOutcome outcome;
        try {
            outcome = verb.equals(CHECKPOINT) ? all.checkpoint(name) : all.rewind(name);
        } finally {
            all.members().forEach(m -> manager.provisioner().resetLiveSession(m.instance()));
        }
        if (outcome instanceof DataOutcome.Done done) {
            Map<String, Object> evidence = new LinkedHashMap<>(done.evidence());
            evidence.put("note", note(verb, evidence));
            return new DataOutcome.Done(evidence);
        }
        return outcome;
    }

    /** What changed in every service of the sandbox since checkpoint {@code name} ({@link SandboxDataDiff}). */
    private DataOutcome diffData(Map<String, ServiceInstance> services, String verb, String name) {
        SandboxDataDiff diff = SandboxDataDiff.of(registry(), services, this::target, DataDiffs.Limits.DEFAULT);
        if (diff.isEmpty()) {
            return noService(verb, Engine::dataDiffs);
        }
        return diff.diff(name);
    }

    /** The target an engine's data feature works on: the instance, with an exec into its container. */
    private ProbeTarget target(ServiceInstance instance) {
        return new ProbeTarget(
                instance.endpoint(),
                instance.credentials(),
                () -> true,
                () -> "",
                manager.provisioner().execIn(instance));
    }

    private static String note(String verb, Map<String, Object> evidence) {
        String note = "one checkpoint covers every service of your sandbox (services); same URLs and credentials after";
        return note + "; " + SESSIONS_NOTE
                + (verb.equals(CHECKPOINT)
                        ? "; the checkpoint lives in the sandbox and counts against its data size limit"
                        : "; keys and documents with an expiry keep their expiry times");
    }

    // --- helpers -----------------------------------------------------------------------------

    private static List<Map<String, Object>> refs(List<SchemaDiff.ObjectRef> refs) {
        return refs.stream()
                .map(r -> Map.<String, Object>of("kind", r.kind(), "name", r.name()))
                .toList();
    }
}
