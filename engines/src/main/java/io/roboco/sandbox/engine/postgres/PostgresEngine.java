package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.ClaimSession;
import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.DataDiffs;
import io.roboco.sandbox.engine.Dumps;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.Features;
import io.roboco.sandbox.engine.LiveSession;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.PhysicalCopies;
import io.roboco.sandbox.engine.PoolSeeding;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.Probes;
import io.roboco.sandbox.engine.ReadinessProbe;
import io.roboco.sandbox.engine.SchemaSnapshots;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.Seeds;
import io.roboco.sandbox.engine.SpecRequest;
import io.roboco.sandbox.engine.Urls;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL sandboxes. The agent gets a plain login role ({@code NOSUPERUSER}, no role/database
 * creation, no replication, no RLS bypass) that owns its database and its {@code public} schema; the
 * {@code roboco_admin} superuser stays with the plugin and is used for readiness and extensions.
 *
 * <p>Works with the official {@code postgres} images and any image honouring their contract
 * ({@code POSTGRES_USER} / {@code POSTGRES_PASSWORD} / {@code POSTGRES_DB} / {@code PGDATA} /
 * {@code PGPORT}, command {@code postgres ...}, trust auth on the local socket).
 */
public final class PostgresEngine implements Engine {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresEngine.class);
    static final String ADMIN_USER = "roboco_admin";
    static final String DATA_DIR = "/var/lib/postgresql/data";
    /** Every cluster has it (initdb makes it); the admin connects there to create an agent's database. */
    static final String MAINTENANCE_DB = "postgres";

    private static final PoolSeeding SEEDING = new PostgresPoolSeeding();
    private static final Seeds SEEDS = new PostgresSeeds();
    private static final Dumps DUMPS = new PostgresDumps();
    private static final PhysicalCopies PHYSICAL_COPIES = new PostgresPhysicalCopies();
    private static final Checkpoints CHECKPOINTS = new PostgresCheckpoints();
    private static final DataDiffs DATA_DIFFS = new PostgresDataDiffs();
    private static final SchemaSnapshots SCHEMA_SNAPSHOTS = new PostgresSchemaSnapshots();
    private static final Set<String> FEATURES = Set.of("vector", "postgis", "pg_trgm", "citext", "uuid-ossp");
    /** Where activated extensions go. */
    static final String EXTENSION_SCHEMA = "public";
    /**
     * Every admin session in a sandbox (JDBC {@code options}, {@code PGOPTIONS} for {@code psql}): a {@code search_path}
     * of the system catalog and the session's own temporary schema only, over any the agent set on its database.
     */
    static final String ADMIN_SESSION_OPTIONS = "-c search_path=pg_catalog,pg_temp";

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public String displayName() {
        return "PostgreSQL";
    }

    @Override
    public String defaultImage() {
        return "postgres:16-alpine";
    }

    @Override
    public List<String> majors() {
        return PostgresImages.MAJORS;
    }

    @Override
    public String defaultImage(String major) {
        if (!PostgresImages.MAJORS.contains(major)) {
            return Engine.super.defaultImage(major);
        }
        return PostgresImages.productionImage(major);
    }

    @Override
    public Optional<String> majorOf(String image) {
        return PostgresImages.majorOf(image);
    }

    @Override
    public Set<String> imageFeatures(String image) {
        return PostgresImages.features(image, FEATURES);
    }

    @Override
    public int defaultPort() {
        return 5432;
    }

    @Override
    public Set<String> features() {
        return FEATURES;
    }

    @Override
    public String featuresKey() {
        return "available_extensions";
    }

    @Override
    public Credentials newCredentials(SecretSource secrets) {
        String id = secrets.identifier();
        return new Credentials(ADMIN_USER, secrets.password(), "agent_" + id, secrets.password(), "sandbox_" + id);
    }

    /**
     * How often autovacuum visits each database, in seconds (Postgres's default is 60). Every visit is a new worker
     * process (a fork, a backend's start-up, a catalog scan) whether or not anything needs vacuuming, for each of a
     * sandbox's three databases: measured here, 100 idle Postgres sandboxes used 286 ms of CPU a second at the default
     * and 25 ms at 300 s (8 s windows of the containers' cgroup, 8 s after they started), so a host full of waiting
     * sandboxes, and the burst that fills it, was paying a seventh of two cores for it. Tables are still vacuumed and
     * analysed, within five minutes; an agent that wants statistics at once runs {@code ANALYZE} (it owns its tables).
     */
    static final int AUTOVACUUM_NAPTIME_SECONDS = 300;

    /**
     * Durability is off (tmpfs data, throwaway database), and WAL is kept small, because it shares the tmpfs
     * with the data: {@code wal_level=minimal} (a table created or truncated in the same transaction, as
     * {@code pgbench -i}, {@code COPY} loads and index builds do, writes no WAL), {@code max_wal_senders=0}
     * (required by minimal; no replication from a sandbox), and {@code max_wal_size=64MB} /
     * {@code min_wal_size=32MB} (checkpoints recycle segments long before the default 1 GB). Measured on the
     * default 256 MB tmpfs: {@code pgbench -i -s 10} failed with "could not extend file" (WAL 64 MB + data)
     * before, and now fits with room for a run (WAL 5 MB; scale 13 is the largest that initialises). All
     * server arguments, so the official images' contract ({@code POSTGRES_*}, {@code PGDATA}) is unchanged.
     * {@code PGPORT} is set so that {@code psql} in an exec, and the image's temporary init server, use the
     * same port as the server.
     *
     * <p>Autovacuum visits each database every {@value #AUTOVACUUM_NAPTIME_SECONDS} s instead of every minute: its
     * idle workers were most of what a waiting sandbox costs the host.
     *
     * <p>The server log keeps only what ends a session or the server ({@code log_min_messages=fatal}: a failed start
     * still says why) and never quotes a statement ({@code log_min_error_statement=panic}): an agent's
     * {@code RAISE WARNING} / {@code RAISE EXCEPTION} of any size, or a statement carrying a password, writes nothing
     * to the log. Both are superuser settings, so the agent cannot lower them for its session or database.
     */
    @Override
    public ContainerSpec containerSpec(SpecRequest request) {
        Credentials c = request.credentials();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("POSTGRES_USER", c.adminUser());
        env.put("POSTGRES_PASSWORD", c.adminPassword());
        env.put("POSTGRES_DB", c.database());
        env.put("PGDATA", DATA_DIR);
        env.put("PGPORT", Integer.toString(request.port()));
        if (PostgresImages.initialisesAtStart(request.image())) {
            // initdb's default trusts 127.0.0.1, which in host network mode is every local user: demand SCRAM there
            // (our login requires it, so a trusting server would never be ready).
            env.put("POSTGRES_INITDB_ARGS", "--auth-host=scram-sha-256 --auth-local=trust");
        }
        List<String> command = List.of(
                "postgres",
                "-c",
                "listen_addresses=" + request.bindHost(),
                "-c",
                "port=" + request.port(),
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "wal_level=minimal",
                "-c",
                "max_wal_senders=0",
                "-c",
                "max_wal_size=64MB",
                "-c",
                "min_wal_size=32MB",
                "-c",
                "autovacuum_naptime=" + AUTOVACUUM_NAPTIME_SECONDS,
                "-c",
                "log_min_messages=fatal",
                "-c",
                "log_min_error_statement=panic");
        return new ContainerSpec(request.image(), env, command, DATA_DIR, request.port());
    }

    @Override
    public ReadinessProbe readiness() {
        return jdbc(Login.ADMIN);
    }

    /**
     * The server's answer to a startup message, as {@code pg_isready} asks ({@link PostgresAccepting}): no login, no
     * driver, so a start's polls cost no SCRAM and no failed pgjdbc connect; the admin login that follows proves both
     * the credential and that the listener is the sandbox's server.
     */
    @Override
    public ReadinessProbe accepting() {
        return PostgresAccepting::check;
    }

    /**
     * One round trip on an admin connection to the agent's database: the role (with a SCRAM verifier
     * computed here, so the plaintext never reaches the server) and the ownership transfers. Then an
     * agent login proves the credential (held on as the liveness session by {@link #prepareAgentHolding}).
     */
    @Override
    public void prepareAgent(ProbeTarget target) throws Exception {
        prepareAgentHolding(target).close();
    }

    /** {@link #prepareAgent}, its proving agent login held as the liveness session. */
    @Override
    public LiveSession prepareAgentHolding(ProbeTarget target) throws Exception {
        Credentials c = target.credentials();
        String agent = identifier(c.user());
        String sql = "CREATE ROLE " + agent + " LOGIN PASSWORD " + literal(ScramVerifier.of(c.password()))
                + " NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;\n"
                + "ALTER DATABASE " + identifier(c.database()) + " OWNER TO " + agent + ";\n"
                + "ALTER SCHEMA public OWNER TO " + agent;
        try (Connection connection = connect(target, Login.ADMIN);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
        return liveSession(connect(target, Login.AGENT));
    }

    /**
     * A claimed warm-pool container: the role, then its database made from {@code template1} with
     * {@code STRATEGY FILE_COPY} (PostgreSQL 15+; about half the time of the default WAL_LOG) and owned by the
     * role, so on 15+ the role also owns {@code public} (its owner is {@code pg_database_owner}). Two round
     * trips on one admin connection to the maintenance database: {@code CREATE DATABASE} cannot share a
     * transaction with anything. Then an agent login proves the credential.
     */
    @Override
    public void prepareClaim(ProbeTarget target) throws Exception {
        try (Connection admin = connect(target, Login.ADMIN, MAINTENANCE_DB)) {
            claimOn(admin, target);
        }
    }

    /**
     * The claim prepared when the pool container became ready ({@link PostgresClaimAhead}): the agent's role made with
     * the claim's password, its login into the pool container's own database proven and held, an admin connection open
     * there; the claim only hands the database over, in one round trip.
     */
    @Override
    public ClaimSession openClaimSession(ProbeTarget pooled, Credentials claim) throws SQLException {
        return PostgresClaimAhead.open(pooled, claim, null);
    }

    private static void claimOn(Connection admin, ProbeTarget target) throws Exception {
        Credentials c = target.credentials();
        String agent = identifier(c.user());
        long t0 = System.nanoTime();
        try (Statement statement = admin.createStatement()) {
            int major = admin.getMetaData().getDatabaseMajorVersion();
            statement.execute("CREATE ROLE " + agent + " LOGIN PASSWORD " + literal(ScramVerifier.of(c.password()))
                    + " NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS");
            long roleMade = System.nanoTime();
            statement.execute("CREATE DATABASE " + identifier(c.database()) + " OWNER " + agent
                    + (major >= 15 ? " STRATEGY FILE_COPY" : ""));
            long databaseMade = System.nanoTime();
            if (major < 15) {
                try (Connection inNew = connect(target, Login.ADMIN);
                        Statement s = inNew.createStatement()) {
                    s.execute("ALTER SCHEMA public OWNER TO " + agent);
                }
            }
            long adminDone = System.nanoTime();
            selectOne(target, Login.AGENT);
            if (LOG.isDebugEnabled()) {
                LOG.debug(
                        "postgres claim at {}: CREATE ROLE {} us, CREATE DATABASE {} us, agent login {} us",
                        target.endpoint(),
                        (roleMade - t0) / 1000,
                        (databaseMade - roleMade) / 1000,
                        (System.nanoTime() - adminDone) / 1000);
            }
        }
    }

    /** Seeded warm-pool containers: seeded as a seeder role when made, handed over to the agent at claim. */
    @Override
    public Optional<PoolSeeding> poolSeeding() {
        return Optional.of(SEEDING);
    }

    /** Seeds: a SQL script run as the agent, or a clone of a source database through {@code pg_dump} in the sandbox. */
    @Override
    public Optional<Seeds> seeds() {
        return Optional.of(SEEDS);
    }

    /** Templates: {@code pg_dump} and {@code psql} inside the sandbox container, on the agent's credential. */
    @Override
    public Optional<Dumps> dumps() {
        return Optional.of(DUMPS);
    }

    /** Physical templates: the stopped server's data directory as a tar stream, written in before a new server starts. */
    @Override
    public Optional<PhysicalCopies> physicalCopies() {
        return Optional.of(PHYSICAL_COPIES);
    }

    /** Checkpoints: copies of the agent's database inside its own sandbox ({@code CREATE DATABASE … TEMPLATE}). */
    @Override
    public Optional<Checkpoints> checkpoints() {
        return Optional.of(CHECKPOINTS);
    }

    /** Data diffs: the agent's database against a checkpoint's copy, table by table ({@link PostgresDataDiffs}). */
    @Override
    public Optional<DataDiffs> dataDiffs() {
        return Optional.of(DATA_DIFFS);
    }

    /** Schema snapshots: the catalog read on the agent's credential. */
    @Override
    public Optional<SchemaSnapshots> schemaSnapshots() {
        return Optional.of(SCHEMA_SNAPSHOTS);
    }

    @Override
    public ReadinessProbe liveness() {
        return Probes.allOf(Probes.running(), jdbc(Login.AGENT));
    }

    /** One held agent connection; a check is one empty-query round trip on it (pgjdbc {@code isValid}). */
    @Override
    public LiveSession openLiveSession(ProbeTarget target) throws SQLException {
        return liveSession(connect(target, Login.AGENT));
    }

    /** A liveness session on {@code connection}, an agent login into the sandbox's container (closed with it). */
    static LiveSession liveSession(Connection connection) {
        return new LiveSession() {
            @Override
            public boolean provesRunning() {
                return true;
            }

            @Override
            public synchronized void check() throws SQLException {
                if (!connection.isValid(2)) {
                    throw new SQLException("the held agent connection no longer answers");
                }
            }

            @Override
            public void close() {
                try {
                    connection.close();
                } catch (SQLException ignored) {
                    // the sandbox is going away
                }
            }
        };
    }

    /**
     * {@code CREATE EXTENSION IF NOT EXISTS … SCHEMA public} through {@code psql} on the container's local socket as
     * the admin (trust auth there, so no password on the exec command line).
     *
     * <p>Pinned, because the agent owns the database and may have set its {@code search_path} (and put objects in
     * schemas of its own) before it asks for a feature on a live sandbox: the admin's session starts with
     * {@link #ADMIN_SESSION_OPTIONS} ({@code PGOPTIONS}, which outranks a database's or role's settings), so nothing it
     * names resolves to an agent's object ahead of {@code pg_catalog}, and the extension goes into {@code public} (the
     * schema the agent's tools and dumps expect) whatever the agent's {@code search_path} says; while its script runs,
     * PostgreSQL sets the path to that schema with {@code pg_catalog} searched first.
     */
    @Override
    public void activate(AllowedFeature allowed, ContainerExec exec, Credentials credentials, String image)
            throws Exception {
        String feature = allowed.name();
        ExecResult result = exec.exec(
                List.of(
                        "psql",
                        "-X",
                        "-q",
                        "-v",
                        "ON_ERROR_STOP=1",
                        "-U",
                        credentials.adminUser(),
                        "-d",
                        credentials.database(),
                        "-c",
                        "CREATE EXTENSION IF NOT EXISTS " + identifier(feature) + " SCHEMA " + EXTENSION_SCHEMA),
                Map.of("PGOPTIONS", ADMIN_SESSION_OPTIONS));
        if (result.ok()) {
            return;
        }
        String output = result.output();
        if (output.contains("is not available") || output.contains("could not open extension control file")) {
            throw new FeatureUnavailableException(name(), feature, image, Features.line(output, "ERROR"));
        }
        throw new IllegalStateException("postgres: CREATE EXTENSION \"" + feature + "\" in image '" + image
                + "' failed with exit code " + result.exitCode() + ": " + output);
    }

    @Override
    public Map<String, String> env(Endpoint endpoint, Credentials credentials) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ROBOCO_TEST_DB_HOST", endpoint.host());
        env.put("ROBOCO_TEST_DB_PORT", Integer.toString(endpoint.port()));
        env.put("ROBOCO_TEST_DB_NAME", credentials.database());
        env.put("ROBOCO_TEST_DB_USER", credentials.user());
        env.put("ROBOCO_TEST_DB_PASSWORD", credentials.password());
        env.put(
                "ROBOCO_TEST_DB_URL",
                Urls.of("postgresql", credentials.user(), credentials.password(), endpoint, credentials.database()));
        return Collections.unmodifiableMap(env);
    }

    // --- connections -------------------------------------------------------------------------

    /**
     * pgjdbc's {@code requireAuth} for every connection to a sandbox: SCRAM-SHA-256 and nothing else. SCRAM is mutual:
     * the password never crosses the connection (only a proof bound to the server's nonce), and the driver fails the
     * login unless the server proves it holds the password's verifier (a valid server signature before
     * {@code AuthenticationOk}). A listener that is not the sandbox's server (a local user who took the port first)
     * cannot ask for a cleartext or MD5 password, cannot skip authentication, and learns nothing it can log in with.
     */
    public static final String SCRAM_ONLY = "scram-sha-256";

    /** pgjdbc login over TCP to the sandbox's database with {@code login}'s credential, then {@code SELECT 1}. */
    static ReadinessProbe jdbc(Login login) {
        return target -> selectOne(target, login);
    }

    static void selectOne(ProbeTarget target, Login login) throws SQLException {
        try (Connection connection = connect(target, login);
                Statement statement = connection.createStatement()) {
            statement.execute("SELECT 1");
        }
    }

    /**
     * A short-timeout pgjdbc connection to the sandbox's database. No TLS: the sandbox has none. Every connection
     * requires SCRAM-SHA-256 to its end ({@link #SCRAM_ONLY}), which proves the listener is the sandbox's server.
     */
    static Connection connect(ProbeTarget target, Login login) throws SQLException {
        return connect(target, login, target.credentials().database());
    }

    static Connection connect(ProbeTarget target, Login login, String database) throws SQLException {
        Credentials c = target.credentials();
        Properties props = new Properties();
        props.setProperty("user", login.user(c));
        props.setProperty("password", login.password(c));
        props.setProperty("connectTimeout", "1");
        props.setProperty("loginTimeout", "2");
        props.setProperty("socketTimeout", "5");
        props.setProperty("sslmode", "disable");
        props.setProperty("requireAuth", SCRAM_ONLY);
        props.setProperty("assumeMinServerVersion", "12");
        props.setProperty("ApplicationName", "roboco-sandbox");
        if (login == Login.ADMIN) {
            props.setProperty("options", ADMIN_SESSION_OPTIONS);
        }
        Endpoint e = target.endpoint();
        String host = e.host().indexOf(':') >= 0 ? "[" + e.host() + "]" : e.host();
        return DriverManager.getConnection(
                "jdbc:postgresql://" + host + ":" + e.port() + "/" + Urls.encode(database), props);
    }

    // --- quoting -----------------------------------------------------------------------------

    /** A double-quoted SQL identifier; embedded quotes doubled, NUL refused. */
    static String identifier(String name) {
        if (name.isEmpty() || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a usable SQL identifier");
        }
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /** A standard-conforming single-quoted SQL literal; quotes doubled, NUL and backslash refused. */
    static String literal(String value) {
        if (value.indexOf('\0') >= 0 || value.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("not a usable SQL literal");
        }
        return "'" + value.replace("'", "''") + "'";
    }
}
