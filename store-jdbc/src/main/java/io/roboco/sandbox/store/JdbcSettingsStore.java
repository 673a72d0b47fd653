package io.roboco.sandbox.store;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.AgentToken;
import io.roboco.sandbox.settings.AuditCursor;
import io.roboco.sandbox.settings.AuditPage;
import io.roboco.sandbox.settings.AuditQuery;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.ClientToken;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.Quota;
import io.roboco.sandbox.settings.Reservation;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SealedContainer;
import io.roboco.sandbox.settings.SeedForm;
import io.roboco.sandbox.settings.ServiceLimits;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.settings.SettingsStoreException;
import io.roboco.sandbox.settings.StoredSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The persistent settings store: an embedded H2 file database in the state directory by default, or
 * PostgreSQL when the operator gives a {@code jdbc:postgresql://} URL. The schema is created or
 * migrated at open. Lists come back ordered by key; audit reads newest first (ties: last appended first).
 * Thread-safe: writes run one after another on one connection, concurrent ones sharing a commit; reads run on a few
 * reader connections beside it (see {@link StoreConnections}).
 */
public final class JdbcSettingsStore implements SettingsStore {
    /** File name (without H2's {@code .mv.db}) of the embedded database inside the state directory. */
    public static final String EMBEDDED_NAME = "roboco-sandbox";

    private static final Logger LOG = LoggerFactory.getLogger(JdbcSettingsStore.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {};
    private static final TypeReference<Map<String, List<String>>> EXTENSIONS = new TypeReference<>() {};
    private static final TypeReference<ProjectData> DATA = new TypeReference<>() {};

    /**
     * The {@code data_settings} column: the project's majors and seeds per engine (seeds as the API's JSON) and its
     * limits per engine (bytes and nano-CPUs; 0 = the server's default). Rows written before limits existed have none.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    private record ProjectData(
            Map<String, String> versions, Map<String, Object> seed, Map<String, StoredLimits> limits) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    private record StoredLimits(long memoryBytes, long dataBytes, long nanoCpus) {}

    private static final String PROJECT_COLUMNS =
            "id, name, services, extensions, data_settings, ttl_default_ms, ttl_max_ms, max_live";
    private static final String AUDIT_COLUMNS = "ts, agent, project, verb, decision, reason, services, duration_ms, id";

    /** The journal file audit records go through ({@link #embedded}); null: they are written straight in. */
    public static final String AUDIT_JOURNAL = "audit.journal";

    private final StoreConnections db;
    /** Set once, right after opening, by {@link #embedded}; null for a store without a state directory. */
    private volatile AuditJournal journal;

    private JdbcSettingsStore(StoreConnections db) {
        this.db = db;
    }

    /**
     * Opens (creating or migrating the schema) the database at {@code jdbcUrl}: {@code jdbc:h2:…} or
     * {@code jdbc:postgresql://…}. Fails with a {@link SettingsStoreException} that names the URL
     * (never the password) and what to check.
     */
    public static JdbcSettingsStore open(String jdbcUrl, String user, String password) {
        DatabaseUrl url = DatabaseUrl.parse(jdbcUrl);
        StoreConnections db = new StoreConnections(url, user == null ? "" : user, password == null ? "" : password);
        try {
            int found = Schema.migrate(db, url.redacted());
            LOG.info(
                    "settings store open at {} (schema version {}{})",
                    url.redacted(),
                    Schema.CURRENT,
                    found == Schema.CURRENT ? "" : ", migrated from " + found);
            return new JdbcSettingsStore(db);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    /**
     * Opens the embedded H2 database {@code <stateDir>/roboco-sandbox.mv.db}, creating the directory if
     * needed. The file is locked to this process; commits are written through at once.
     */
    public static JdbcSettingsStore embedded(Path stateDir) {
        Path dir = stateDir.toAbsolutePath().normalize();
        if (dir.toString().contains(";")) {
            throw new SettingsStoreException("state directory " + dir + " contains ';', which H2 cannot take in a"
                    + " database URL; choose another ROBOCO_SANDBOX_STATE_DIR");
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new SettingsStoreException(
                    "cannot create the state directory " + dir + ": " + e
                            + "; create it, or set ROBOCO_SANDBOX_STATE_DIR to a writable directory",
                    e);
        }
        // FILE lock (H2's default) refuses a second process; WRITE_DELAY=0 flushes each commit so a killed
        // server loses nothing it acknowledged; DB_CLOSE_ON_EXIT=FALSE keeps H2's own JVM shutdown hook from
        // closing the database while the server's shutdown is still releasing sandboxes and writing their
        // audit records (the server closes the store itself, as its last shutdown step). QUERY_CACHE_SIZE=256: the
        // store runs about 60 distinct statements and H2 keeps 8 parsed per connection by default, so a request's
        // reads and writes were parsed again on every call (JFR: H2's Parser under the request threads).
        JdbcSettingsStore store = open(
                "jdbc:h2:file:" + dir.resolve(EMBEDDED_NAME)
                        + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE;QUERY_CACHE_SIZE=256",
                "sa",
                "");
        try {
            store.journal =
                    AuditJournal.open(dir.resolve(AUDIT_JOURNAL), store::insertAudit, n -> store.newestAudit(n));
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        return store;
    }

    // --- projects ---------------------------------------------------------------------------

    @Override
    public Optional<Project> findProject(String id) {
        return db.read(
                "read project " + id,
                c -> one(
                        c,
                        "SELECT " + PROJECT_COLUMNS + " FROM projects" + " WHERE id = ?",
                        JdbcSettingsStore::project,
                        id));
    }

    @Override
    public List<Project> allProjects() {
        return db.read(
                "list projects",
                c -> all(
                        c,
                        "SELECT " + PROJECT_COLUMNS + " FROM projects" + " ORDER BY id",
                        JdbcSettingsStore::project));
    }

    @Override
    public void saveProject(Project project) {
        String services = write(project.services());
        String extensions = write(project.extensions());
        Map<String, StoredLimits> limits = new TreeMap<>();
        project.limits()
                .forEach((service, l) ->
                        limits.put(service, new StoredLimits(l.memoryBytes(), l.dataBytes(), l.nanoCpus())));
        String data = write(new ProjectData(project.versions(), SeedForm.toJson(project.seeds()), limits));
        db.transaction(
                "save project " + project.id(),
                c -> upsert(
                        c,
                        "UPDATE projects SET name = ?, services = ?, extensions = ?, data_settings = ?, ttl_default_ms = ?, ttl_max_ms = ?,"
                                + " max_live = ? WHERE id = ?",
                        "INSERT INTO projects (name, services, extensions, data_settings, ttl_default_ms, ttl_max_ms, max_live, id)"
                                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        project.name(),
                        services,
                        extensions,
                        data,
                        millis(project.ttlDefault()),
                        millis(project.ttlMax()),
                        project.maxLive(),
                        project.id()));
    }

    // --- flags ------------------------------------------------------------------------------

    @Override
    public Optional<Boolean> storedFlag(String name) {
        return db.read(
                "read flag " + name,
                c -> one(c, "SELECT enabled FROM flags WHERE name = ?", rs -> rs.getBoolean(1), name));
    }

    @Override
    public void storeFlag(String name, boolean enabled) {
        Objects.requireNonNull(name, "name");
        db.transaction(
                "store flag " + name,
                c -> upsert(
                        c,
                        "UPDATE flags SET enabled = ? WHERE name = ?",
                        "INSERT INTO flags (enabled, name) VALUES (?, ?)",
                        enabled,
                        name));
    }

    // --- agents -----------------------------------------------------------------------------

    @Override
    public Optional<Agent> findAgent(String slug) {
        return db.read(
                "read agent " + slug,
                c -> one(
                        c,
                        "SELECT slug, role, project, task FROM agents" + " WHERE slug = ?",
                        JdbcSettingsStore::agent,
                        slug));
    }

    @Override
    public List<Agent> allAgents() {
        return db.read(
                "list agents",
                c -> all(c, "SELECT slug, role, project, task FROM agents ORDER BY slug", JdbcSettingsStore::agent));
    }

    @Override
    public void saveAgent(Agent agent) {
        db.transaction(
                "save agent " + agent.slug(),
                c -> upsert(
                        c,
                        "UPDATE agents SET role = ?, project = ?, task = ? WHERE slug = ?",
                        "INSERT INTO agents (role, project, task, slug) VALUES (?, ?, ?, ?)",
                        agent.role(),
                        agent.project(),
                        agent.task(),
                        agent.slug()));
    }

    @Override
    public void deleteAgent(String slug) {
        db.transaction("delete agent " + slug, c -> update(c, "DELETE FROM agents WHERE slug = ?", slug));
    }

    // --- agents' MCP tokens (digests only) --------------------------------------------------

    @Override
    public void beginEngagement(String agent, String engagement, Instant started) {
        db.transaction("begin an engagement of agent " + agent, c -> {
            update(c, "DELETE FROM agent_tokens WHERE agent = ?", agent);
            update(c, "DELETE FROM agent_engagements WHERE agent = ?", agent);
            return update(
                    c,
                    "INSERT INTO agent_engagements (agent, engagement, started) VALUES (?, ?, ?)",
                    agent,
                    engagement,
                    timestamp(started));
        });
    }

    @Override
    public Optional<String> engagement(String agent) {
        return db.read(
                "read the engagement of agent " + agent,
                c -> one(c, "SELECT engagement FROM agent_engagements WHERE agent = ?", rs -> rs.getString(1), agent));
    }

    @Override
    public boolean endEngagement(String agent) {
        return db.transaction(
                        "end the engagement of agent " + agent,
                        c -> update(c, "DELETE FROM agent_tokens WHERE agent = ?", agent)
                                + update(c, "DELETE FROM agent_engagements WHERE agent = ?", agent))
                > 0;
    }

    @Override
    public void saveToken(AgentToken token) {
        db.transaction("save the MCP token of agent " + token.agent(), c -> {
            update(c, "DELETE FROM agent_tokens WHERE agent = ?", token.agent());
            return update(
                    c,
                    "INSERT INTO agent_tokens (agent, digest, created, engagement, expires, toolsets)"
                            + " VALUES (?, ?, ?, ?, ?, ?)",
                    token.agent(),
                    token.digest(),
                    timestamp(token.created()),
                    token.engagement(),
                    timestamp(token.expires()),
                    String.join(",", token.toolsets()));
        });
    }

    @Override
    public Optional<AgentToken> findToken(String digest) {
        // A token from before engagements (no expiry) is never current: its agent is minted a new one.
        return db.read(
                "look up an MCP token",
                c -> one(
                        c,
                        "SELECT agent, digest, engagement, created, expires, toolsets FROM agent_tokens"
                                + " WHERE digest = ? AND expires IS NOT NULL",
                        rs -> new AgentToken(
                                rs.getString(1),
                                rs.getString(2),
                                rs.getString(3),
                                rs.getObject(4, OffsetDateTime.class).toInstant(),
                                rs.getObject(5, OffsetDateTime.class).toInstant(),
                                toolsets(rs.getString(6))),
                        digest));
    }

    private static List<String> toolsets(String csv) {
        return csv == null || csv.isBlank() ? List.of() : List.of(csv.split(","));
    }

    @Override
    public boolean deleteToken(String agent) {
        return db.transaction(
                        "revoke the MCP token of agent " + agent,
                        c -> update(c, "DELETE FROM agent_tokens WHERE agent = ?", agent))
                > 0;
    }

    // --- client tokens (digests only) -----------------------------------------------------------

    @Override
    public void saveClientToken(ClientToken token) {
        db.transaction("save the client token of owner " + token.owner(), c -> {
            update(c, "DELETE FROM client_tokens WHERE owner = ?", token.owner());
            return update(
                    c,
                    "INSERT INTO client_tokens (owner, digest, created) VALUES (?, ?, ?)",
                    token.owner(),
                    token.digest(),
                    timestamp(token.created()));
        });
    }

    @Override
    public Optional<ClientToken> findClientToken(String digest) {
        return db.read(
                "look up a client token",
                c -> one(
                        c,
                        "SELECT owner, digest, created FROM client_tokens WHERE digest = ?",
                        JdbcSettingsStore::clientToken,
                        digest));
    }

    @Override
    public List<ClientToken> clientTokens() {
        return db.read(
                "list the client tokens",
                c -> all(
                        c,
                        "SELECT owner, digest, created FROM client_tokens ORDER BY owner",
                        JdbcSettingsStore::clientToken));
    }

    @Override
    public boolean deleteClientToken(String owner) {
        return db.transaction(
                        "revoke the client token of owner " + owner,
                        c -> update(c, "DELETE FROM client_tokens WHERE owner = ?", owner))
                > 0;
    }

    private static ClientToken clientToken(ResultSet rs) throws SQLException {
        return new ClientToken(
                rs.getString(1),
                rs.getString(2),
                rs.getObject(3, OffsetDateTime.class).toInstant());
    }

    private static OffsetDateTime timestamp(Instant instant) {
        return OffsetDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
    }

    // --- audit ------------------------------------------------------------------------------

    /**
     * Durable once it returns: in the audit journal when the store has one (the database gets it soon after, every
     * read of the trail waits for that), else committed to the database.
     */
    @Override
    public void append(AuditRecord r) {
        appendAll(List.of(r));
    }

    /** A group commit ({@code AuditTrail}): every record in one journal write, or one transaction; all or none. */
    @Override
    public void appendAll(List<AuditRecord> records) {
        if (records.isEmpty()) {
            return;
        }
        records.forEach(r -> Objects.requireNonNull(r.time(), "audit record time"));
        AuditJournal j = journal;
        if (j != null) {
            j.append(records);
        } else {
            insertAudit(records);
        }
    }

    /** Every record in one transaction, one commit, one flush; all or none. */
    private void insertAudit(List<AuditRecord> records) {
        db.transaction("append " + records.size() + " audit record(s)", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO audit"
                            + " (ts, agent, project, verb, decision, reason, services, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                for (AuditRecord r : records) {
                    ps.setObject(1, OffsetDateTime.ofInstant(r.time().truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC));
                    ps.setString(2, r.agent());
                    ps.setString(3, r.project());
                    ps.setString(4, r.verb());
                    ps.setString(5, r.decision());
                    ps.setString(6, r.reason());
                    ps.setString(7, write(r.services()));
                    ps.setLong(8, r.durationMillis());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    /** Reads of the trail see every record appended before them. */
    private void caughtUp() {
        AuditJournal j = journal;
        if (j != null) {
            j.drain();
        }
    }

    private List<AuditRecord> newestAudit(int limit) {
        return db.read(
                "read the audit trail",
                c -> all(
                        c,
                        "SELECT ts, agent, project, verb, decision, reason, services, duration_ms FROM audit"
                                + " ORDER BY ts DESC, id DESC LIMIT ?",
                        JdbcSettingsStore::auditRecord,
                        limit));
    }

    @Override
    public List<AuditRecord> recent(String agent, String decision, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        caughtUp();
        StringBuilder sql = new StringBuilder(
                "SELECT ts, agent, project, verb, decision, reason, services, duration_ms" + " FROM audit WHERE 1 = 1");
        List<Object> args = new ArrayList<>();
        if (agent != null && !agent.isBlank()) {
            sql.append(" AND agent = ?");
            args.add(agent);
        }
        if (decision != null && !decision.isBlank()) {
            sql.append(" AND decision = ?");
            args.add(decision);
        }
        sql.append(" ORDER BY ts DESC, id DESC LIMIT ?");
        args.add(limit);
        return db.read(
                "read the audit trail", c -> all(c, sql.toString(), JdbcSettingsStore::auditRecord, args.toArray()));
    }

    @Override
    public AuditPage page(AuditQuery q) {
        caughtUp();
        AuditCursor after = q.cursor() == null ? null : AuditCursor.parse(q.cursor());
        StringBuilder sql = new StringBuilder("SELECT " + AUDIT_COLUMNS + " FROM audit WHERE 1 = 1");
        List<Object> args = new ArrayList<>();
        if (q.agent() != null) {
            sql.append(" AND agent = ?");
            args.add(q.agent());
        }
        if (q.decision() != null) {
            sql.append(" AND decision = ?");
            args.add(q.decision());
        }
        if (after != null) {
            OffsetDateTime ts = JdbcSandboxes.ts(after.time());
            sql.append(" AND (ts < ? OR (ts = ? AND id < ?))");
            args.add(ts);
            args.add(ts);
            args.add(after.id());
        }
        sql.append(" ORDER BY ts DESC, id DESC LIMIT ?");
        args.add(q.limit() + 1);
        List<Object[]> rows = db.read(
                "read a page of the audit trail",
                c -> all(c, sql.toString(), rs -> new Object[] {auditRecord(rs), rs.getLong(9)}, args.toArray()));
        boolean more = rows.size() > q.limit();
        List<Object[]> page = more ? rows.subList(0, q.limit()) : rows;
        String next = null;
        if (more) {
            Object[] last = page.get(page.size() - 1);
            next = AuditCursor.after(((AuditRecord) last[0]).time(), (Long) last[1])
                    .toString();
        }
        return new AuditPage(page.stream().map(r -> (AuditRecord) r[0]).toList(), next);
    }

    @Override
    public int pruneAudit(Instant before, int batch) {
        caughtUp();
        return db.transaction(
                "prune the audit trail",
                c -> update(
                        c,
                        "DELETE FROM audit WHERE id IN (SELECT id FROM audit"
                                + " WHERE ts < ? ORDER BY ts, id LIMIT ?)",
                        JdbcSandboxes.ts(before),
                        batch));
    }

    // --- sandboxes --------------------------------------------------------------------------

    @Override
    public Reservation reserve(SandboxRecord draft, Quota quota) {
        return db.transaction(
                "reserve sandbox " + draft.id() + " for owner " + draft.owner(),
                c -> JdbcSandboxes.reserve(c, db.kind(), draft, quota));
    }

    @Override
    public Optional<SandboxRecord> findSandbox(String id) {
        return db.read("read sandbox " + id, c -> JdbcSandboxes.find(c, id));
    }

    @Override
    public List<SandboxRecord> sandboxes(SandboxQuery query) {
        return db.read("list sandboxes", c -> JdbcSandboxes.list(c, query));
    }

    @Override
    public boolean updateSandbox(SandboxRecord record) {
        return db.transaction("update sandbox " + record.id(), c -> JdbcSandboxes.updateRecord(c, record));
    }

    @Override
    public boolean markDeleted(String id, Instant when, String reason, boolean onlyIfExpired) {
        return db.transaction("mark sandbox " + id + " deleted", c -> {
            boolean marked = JdbcSandboxes.markDeleted(c, id, when, reason, onlyIfExpired);
            if (marked) {
                JdbcSealedCredentials.deleteAll(c, id); // a closed sandbox's credentials do not outlive it
                JdbcSnapshots.deleteAll(c, id); // nor its schema snapshots
            }
            return marked;
        });
    }

    @Override
    public void forgetSandbox(String id) {
        db.transaction("forget sandbox " + id, c -> {
            JdbcSandboxes.forget(c, id);
            JdbcSealedCredentials.deleteAll(c, id);
            JdbcSnapshots.deleteAll(c, id);
            return null;
        });
    }

    @Override
    public int pruneSandboxes(Instant before, int batch) {
        return db.transaction("prune deleted sandbox records", c -> JdbcSandboxes.prune(c, before, batch));
    }

    @Override
    public void heartbeat(String instance, Instant now) {
        db.transaction("record the heartbeat of instance " + instance, c -> {
            JdbcSandboxes.heartbeat(c, db.kind(), instance, now);
            return null;
        });
    }

    @Override
    public Map<String, Instant> heartbeats() {
        return db.read("read instance heartbeats", JdbcSandboxes::heartbeats);
    }

    /** The schema version the database records now. */
    public int schemaVersion() {
        return db.read(
                "read the schema version",
                c -> one(c, "SELECT MAX(version) FROM schema_version", rs -> rs.getInt(1))
                        .orElse(0));
    }

    /** The schema version this code writes. */
    public static int currentSchemaVersion() {
        return Schema.CURRENT;
    }

    /** Where the store is, without a password (for messages and the doctor). */
    public String where() {
        return db.where();
    }

    // --- schema snapshots ---------------------------------------------------------------------

    @Override
    public boolean saveSnapshot(StoredSnapshot snapshot, int max) {
        return db.transaction(
                "save snapshot '" + snapshot.name() + "' of sandbox " + snapshot.sandbox(),
                c -> JdbcSnapshots.save(c, snapshot, max));
    }

    @Override
    public Optional<StoredSnapshot> findSnapshot(String sandbox, String name) {
        return db.read("read snapshot '" + name + "' of sandbox " + sandbox, c -> JdbcSnapshots.find(c, sandbox, name));
    }

    @Override
    public List<String> snapshotNames(String sandbox) {
        return db.read("list the snapshots of sandbox " + sandbox, c -> JdbcSnapshots.names(c, sandbox));
    }

    @Override
    public int deleteSnapshots(String sandbox) {
        return db.transaction("delete the snapshots of sandbox " + sandbox, c -> JdbcSnapshots.deleteAll(c, sandbox));
    }

    // --- sealed credentials (opaque here: the plugin seals and opens them) ---------------------

    @Override
    public void saveSealed(SealedContainer row) {
        db.transaction(
                "save the sealed credential of container " + row.containerId(),
                c -> JdbcSealedCredentials.save(c, row));
    }

    @Override
    public List<SealedContainer> sealedOf(String instance) {
        return db.read(
                "read the sealed credentials of instance " + instance, c -> JdbcSealedCredentials.of(c, instance));
    }

    @Override
    public boolean deleteSealed(String sandboxId, String containerId) {
        return db.transaction(
                "delete the sealed credential of container " + containerId,
                c -> JdbcSealedCredentials.delete(c, sandboxId, containerId));
    }

    @Override
    public boolean resealIf(String sandboxId, String containerId, String expected, String next) {
        return db.transaction(
                "re-seal the credential of container " + containerId,
                c -> JdbcSealedCredentials.resealIf(c, sandboxId, containerId, expected, next));
    }

    @Override
    public void close() {
        AuditJournal j = journal;
        if (j != null) {
            j.close(); // what is left goes into the database first
        }
        db.close();
    }

    // --- rows -------------------------------------------------------------------------------

    private static Project project(ResultSet rs) throws SQLException {
        ProjectData data = read(rs.getString(5), DATA);
        long ttlDefault = rs.getLong(6);
        Duration def = rs.wasNull() ? null : Duration.ofMillis(ttlDefault);
        long ttlMax = rs.getLong(7);
        Duration max = rs.wasNull() ? null : Duration.ofMillis(ttlMax);
        int maxLive = rs.getInt(8);
        Integer live = rs.wasNull() ? null : maxLive;
        Map<String, ServiceLimits> limits = new TreeMap<>();
        if (data.limits() != null) {
            data.limits()
                    .forEach((service, l) ->
                            limits.put(service, new ServiceLimits(l.memoryBytes(), l.dataBytes(), l.nanoCpus())));
        }
        return new Project(
                rs.getString(1),
                rs.getString(2),
                read(rs.getString(3), STRINGS),
                read(rs.getString(4), EXTENSIONS),
                data.versions(),
                def,
                max,
                live,
                SeedForm.fromStored(data.seed()),
                limits);
    }

    private static Long millis(Duration d) {
        return d == null ? null : d.toMillis();
    }

    private static Agent agent(ResultSet rs) throws SQLException {
        return new Agent(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4));
    }

    private static AuditRecord auditRecord(ResultSet rs) throws SQLException {
        return new AuditRecord(
                rs.getObject(1, OffsetDateTime.class).toInstant(),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getString(6),
                read(rs.getString(7), STRINGS),
                rs.getLong(8));
    }

    // --- plumbing ---------------------------------------------------------------------------

    @FunctionalInterface
    interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    static <T> Optional<T> one(Connection c, String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        List<T> rows = all(c, sql, mapper, args);
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    static <T> List<T> all(Connection c, String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, args);
                ResultSet rs = ps.executeQuery()) {
            List<T> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(mapper.map(rs));
            }
            return rows;
        }
    }

    /** Safe without MERGE or ON CONFLICT because {@link StoreConnections} runs one transaction at a time. */
    private static Void upsert(Connection c, String updateSql, String insertSql, Object... args) throws SQLException {
        if (update(c, updateSql, args) == 0) {
            update(c, insertSql, args);
        }
        return null;
    }

    static Integer update(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, args)) {
            return ps.executeUpdate();
        }
    }

    static PreparedStatement prepare(Connection c, String sql, Object... args) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        try {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            return ps;
        } catch (SQLException e) {
            ps.close();
            throw e;
        }
    }

    static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new SettingsStoreException("cannot encode settings value as JSON: " + e.getOriginalMessage(), e);
        }
    }

    static <T> T read(String json, TypeReference<T> type) {
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new SettingsStoreException(
                    "settings database holds malformed JSON '" + json + "': " + e.getOriginalMessage(), e);
        }
    }
}
