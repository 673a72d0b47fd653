package io.roboco.sandbox.data;

import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.engine.postgres.PostgresCheckpoints;
import io.roboco.sandbox.engine.postgres.PostgresSchemas;
import io.roboco.sandbox.engine.postgres.schema.SchemaDiff;
import io.roboco.sandbox.engine.postgres.schema.SchemaDigest;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.provision.ServiceInstance;

import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Data operations on a sandbox's Postgres: schema snapshots and diffs, checkpoint and rewind. Each runs under the
 * owner's lock (never overlapping its request_sandbox or release) on the sandbox the manager holds for that key.
 * Keyed by the sandbox's owner key (today the agent slug of its verb sandbox); the lifecycle work's sandbox ids
 * re-key it without a change here.
 */
public final class SandboxData {
    public static final String SNAPSHOT_SCHEMA = "snapshot_schema";
    public static final String DIFF_SCHEMA = "diff_schema";
    public static final String CHECKPOINT = "checkpoint_sandbox";
    public static final String REWIND = "rewind_sandbox";
    public static final Set<String> VERBS = Set.of(SNAPSHOT_SCHEMA, DIFF_SCHEMA, CHECKPOINT, REWIND);
    static final String SNAPSHOT_NOTE = "a snapshot is an explicit before-state taken when you asked, not refreshed truth;"
            + " take a new one to move the baseline";
    static final String SESSIONS_NOTE = "your open sessions on the database were closed (Postgres copies only an unconnected"
            + " database); reconnect with the same ROBOCO_TEST_DB_URL";

    private final SandboxManager manager;
    private final Clock clock;
    private final Snapshots snapshots = new Snapshots();

    public SandboxData(SandboxManager manager, Clock clock) {
        this.manager = manager;
        this.clock = clock;
    }

    /** Runs one of {@link #VERBS} with a snapshot or checkpoint {@code name} on the sandbox keyed {@code sandbox}. */
    public DataOutcome run(String sandbox, String verb, String name) throws InterruptedException {
        if (!VERBS.contains(verb)) {
            throw new IllegalArgumentException("not a data operation: " + verb);
        }
        try {
            PostgresCheckpoints.requireName(name);
        } catch (UnknownNameException e) {
            return new DataOutcome.Refused(e.getMessage().replace("checkpoint name", (verb.contains("schema") ? "snapshot" : "checkpoint") + " name"));
        }
        try {
            return manager.withAgent(sandbox, found -> {
                Optional<ServiceInstance> postgres = found.map(AgentSandbox::services).map(s -> s.get("postgres"));
                if (postgres.isEmpty()) {
                    return new DataOutcome.Refused(found.isEmpty()
                            ? "no sandbox for '" + sandbox + "'; call request_sandbox first"
                            : "the sandbox has no postgres service; " + verb + " works on Postgres (opt the project into postgres)");
                }
                return switch (verb) {
                    case SNAPSHOT_SCHEMA -> snapshot(sandbox, name, postgres.get());
                    case DIFF_SCHEMA -> diff(sandbox, name, postgres.get());
                    case CHECKPOINT -> checkpoint(name, postgres.get());
                    default -> rewind(name, postgres.get());
                };
            });
        } catch (InterruptedException e) {
            throw e;
        } catch (SQLException e) {
            return new DataOutcome.Failed(verb + " failed: " + redact(e.getMessage(), sandbox) + "; nothing was changed, try again", true);
        } catch (Exception e) {
            return new DataOutcome.Failed(verb + " failed: " + e.getClass().getSimpleName() + ": " + e.getMessage(), true);
        }
    }

    /** The sandbox keyed {@code sandbox} is gone for good (released): its snapshots go with it. */
    public void forget(String sandbox) {
        snapshots.forget(sandbox);
    }

    // --- operations --------------------------------------------------------------------------

    private DataOutcome snapshot(String sandbox, String name, ServiceInstance postgres) throws SQLException {
        SchemaDigest digest = PostgresSchemas.snapshot(target(postgres));
        Snapshots.Snapshot snapshot = new Snapshots.Snapshot(name, clock.instant(), digest);
        if (!snapshots.save(sandbox, snapshot)) {
            return new DataOutcome.Refused("this sandbox already holds " + Snapshots.MAX_PER_SANDBOX + " snapshots; reuse a name ("
                    + String.join(", ", snapshots.names(sandbox)) + ")");
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

    private DataOutcome diff(String sandbox, String name, ServiceInstance postgres) throws SQLException {
        Optional<Snapshots.Snapshot> before = snapshots.find(sandbox, name);
        if (before.isEmpty()) {
            List<String> names = snapshots.names(sandbox);
            return new DataOutcome.Refused("no snapshot '" + name + "' of this sandbox; there are: "
                    + (names.isEmpty() ? "none (take one with snapshot_schema)" : String.join(", ", names)));
        }
        SchemaDigest now = PostgresSchemas.snapshot(target(postgres));
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

    private DataOutcome checkpoint(String name, ServiceInstance postgres) throws SQLException {
        PostgresCheckpoints.Result result;
        try {
            result = PostgresCheckpoints.checkpoint(target(postgres), name);
        } finally {
            manager.provisioner().resetLiveSession(postgres);
        }
        return new DataOutcome.Done(answer(result, "checkpoint"));
    }

    private DataOutcome rewind(String name, ServiceInstance postgres) throws SQLException {
        PostgresCheckpoints.Result result;
        try {
            result = PostgresCheckpoints.rewind(target(postgres), name);
        } catch (UnknownNameException e) {
            return new DataOutcome.Refused(e.getMessage());
        } finally {
            manager.provisioner().resetLiveSession(postgres);
        }
        return new DataOutcome.Done(answer(result, "rewound to"));
    }

    // --- helpers -----------------------------------------------------------------------------

    private static Map<String, Object> answer(PostgresCheckpoints.Result result, String what) {
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("name", result.name());
        evidence.put(what.equals("checkpoint") ? "checkpoint_bytes" : "database_bytes", result.sizeBytes());
        evidence.put("sessions_closed", result.sessionsClosed());
        evidence.put("millis", result.millis());
        evidence.put("note", SESSIONS_NOTE + (what.equals("checkpoint")
                ? "; the checkpoint lives in the sandbox and counts against its data size limit" : ""));
        return evidence;
    }

    private static List<Map<String, Object>> refs(List<SchemaDiff.ObjectRef> refs) {
        return refs.stream().map(r -> Map.<String, Object>of("kind", r.kind(), "name", r.name())).toList();
    }

    private static ProbeTarget target(ServiceInstance instance) {
        return ProbeTarget.of(instance.endpoint(), instance.credentials());
    }

    private String redact(String message, String sandbox) {
        String out = String.valueOf(message);
        Optional<ServiceInstance> postgres = manager.find(sandbox).map(s -> s.services().get("postgres"));
        if (postgres.isPresent()) {
            for (String secret : new String[] {postgres.get().credentials().password(), postgres.get().credentials().adminPassword()}) {
                if (secret != null && !secret.isEmpty()) {
                    out = out.replace(secret, "<redacted>");
                }
            }
        }
        return out;
    }
}
