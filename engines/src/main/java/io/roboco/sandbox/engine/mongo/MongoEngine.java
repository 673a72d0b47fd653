package io.roboco.sandbox.engine.mongo;

import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.DataDiffs;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.LiveSession;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.Probes;
import io.roboco.sandbox.engine.ReadinessProbe;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;
import io.roboco.sandbox.engine.Urls;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.bson.Document;

/**
 * MongoDB sandboxes. The root user comes from {@code MONGO_INITDB_ROOT_*} (the official image's contract,
 * which also turns access control on); the agent is a {@code readWrite} user on its own database, made with
 * {@code createUser} on that database, so the database is the user's {@code authSource}. The handed-out
 * {@code ROBOCO_TEST_MONGO_URL} names it ({@code ?authSource=}), and standard drivers use the URL as it is.
 *
 * <p>The local test image ({@code roboco-sandbox/mongo-compat}, mongo-java-server behind mongod-style access
 * control) honours the same contract: SCRAM-SHA-1 and SCRAM-SHA-256, users per database, code 13 for
 * everything but the handshake until a connection has authenticated. The engine treats both alike.
 *
 * <p>The agent's password reaches the server inside {@code createUser} (mongod hashes it; SCRAM-SHA-256
 * has no pre-hashed form), on the plugin's admin connection only; neither server logs command bodies.
 *
 * <p><b>Not verified against a real {@code mongod}</b> (none is obtainable on the build machines). Known
 * risk there: the official entrypoint runs its temporary init server on {@code 127.0.0.1:27017}
 * whatever {@code --port} says, so in host-network mode two Mongo sandboxes initialising at once (or a
 * host mongod) collide on that port. Named-network mode (one network namespace per container) is
 * unaffected.
 */
public final class MongoEngine implements Engine {
    static final String ADMIN_USER = "roboco_admin";
    static final String DATA_DIR = "/data/db";
    private static final Checkpoints CHECKPOINTS = new MongoCheckpoints();
    private static final DataDiffs DATA_DIFFS = new MongoDataDiffs();

    @Override
    public String name() {
        return "mongo";
    }

    @Override
    public String displayName() {
        return "MongoDB";
    }

    @Override
    public String defaultImage() {
        return "mongo:8";
    }

    @Override
    public int defaultPort() {
        return 27017;
    }

    @Override
    public Set<String> features() {
        return Set.of();
    }

    @Override
    public String featuresKey() {
        return null;
    }

    @Override
    public Credentials newCredentials(SecretSource secrets) {
        String id = secrets.identifier();
        return new Credentials(ADMIN_USER, secrets.password(), "agent_" + id, secrets.password(), "sandbox_" + id);
    }

    /**
     * mongod's cap on one log entry's attributes (its default is 10): a slow operation's entry quotes the agent's
     * command, truncated to this. {@code --quiet} drops the per-connection lines. The agent ({@code readWrite}) cannot
     * change either, nor turn profiling or slow-operation logging up. The local stand-in accepts and ignores both.
     */
    static final int MAX_LOG_ENTRY_KB = 4;

    /**
     * PBKDF2 iterations of the sandbox's SCRAM credentials: mongod's lowest allowed (defaults 10,000 and 15,000). The
     * iteration count slows the guessing of a weak password from a leaked stored key; every password here is 32
     * characters drawn at random from 57 (≈ 186 bits), so the count buys nothing, and it costs on every login of every
     * client (the server's key derivation for the root user at start and for {@code createUser}; each client's per
     * connection): at 15,000, one SCRAM-SHA-256 login cost this JVM 40-50 ms of CPU here.
     */
    static final int SCRAM_SHA1_ITERATIONS = 5_000;

    static final int SCRAM_SHA256_ITERATIONS = 4_096;

    @Override
    public ContainerSpec containerSpec(SpecRequest request) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MONGO_INITDB_ROOT_USERNAME", request.credentials().adminUser());
        env.put("MONGO_INITDB_ROOT_PASSWORD", request.credentials().adminPassword());
        List<String> command = List.of(
                "mongod",
                "--bind_ip",
                request.bindHost(),
                "--port",
                Integer.toString(request.port()),
                "--quiet",
                "--setParameter",
                "maxLogSizeKB=" + MAX_LOG_ENTRY_KB,
                "--setParameter",
                "scramIterationCount=" + SCRAM_SHA1_ITERATIONS,
                "--setParameter",
                "scramSHA256IterationCount=" + SCRAM_SHA256_ITERATIONS);
        return new ContainerSpec(request.image(), env, command, DATA_DIR, request.port());
    }

    /**
     * The admin user exists and may log in with SCRAM-SHA-256, asked without a login ({@link MongoAccepting}): the
     * admin login that follows ({@link #prepareAgent}'s, a claim's) proves the credential.
     */
    @Override
    public ReadinessProbe accepting() {
        return MongoAccepting::check;
    }

    @Override
    public ReadinessProbe readiness() {
        // The port check keeps each not-yet-ready poll at a refused connect instead of a driver client that
        // waits out its one-second server selection: readiness is seen within one poll gap, not a second late.
        return Probes.allOf(Probes.tcpOpen(), mongoPing(Login.ADMIN));
    }

    /**
     * {@code createUser} on the agent's database as root (one admin login), then an agent login proves it. The
     * user gets SCRAM-SHA-256 only (drivers pick it from the handshake's {@code saslSupportedMechs}); SHA-1 would
     * add a second key derivation to every start and claim for a mechanism no current driver needs.
     */
    @Override
    public void prepareAgent(ProbeTarget target) throws Exception {
        prepareAgentHolding(target).close();
    }

    /** {@link #prepareAgent}, its proving agent login (a client that pinged as the agent) held as the liveness session. */
    @Override
    public LiveSession prepareAgentHolding(ProbeTarget target) throws Exception {
        Credentials c = target.credentials();
        Document createUser = new Document("createUser", c.user())
                .append("pwd", c.password())
                .append("roles", List.of(new Document("role", "readWrite").append("db", c.database())))
                .append("mechanisms", List.of("SCRAM-SHA-256"));
        MongoSessions.run(target, Login.ADMIN, c.database(), createUser);
        return MongoSessions.held(target, Login.AGENT);
    }

    /** {@code createUser} on the claim's new database, as a cold start does: Mongo creates a database on first write. */
    @Override
    public void prepareClaim(ProbeTarget target) throws Exception {
        prepareAgent(target);
    }

    /** One held client logged in as the agent; a check is one {@code ping} on it. */
    @Override
    public LiveSession openLiveSession(ProbeTarget target) {
        return MongoSessions.held(target, Login.AGENT);
    }

    @Override
    public ReadinessProbe liveness() {
        return Probes.allOf(Probes.running(), mongoPing(Login.AGENT));
    }

    /** mongodb-driver-sync {@code ping} after authenticating (SCRAM) with {@code login}'s credential. */
    static ReadinessProbe mongoPing(Login login) {
        return target -> MongoSessions.ping(target, login);
    }

    /** The agent's database copied collection by collection into one it has no role on ({@link MongoCheckpoints}). */
    @Override
    public Optional<Checkpoints> checkpoints() {
        return Optional.of(CHECKPOINTS);
    }

    /** The agent's database against a checkpoint's copy, document by document ({@link MongoDataDiffs}). */
    @Override
    public Optional<DataDiffs> dataDiffs() {
        return Optional.of(DATA_DIFFS);
    }

    @Override
    public Map<String, String> env(Endpoint endpoint, Credentials credentials) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ROBOCO_TEST_MONGO_HOST", endpoint.host());
        env.put("ROBOCO_TEST_MONGO_PORT", Integer.toString(endpoint.port()));
        env.put("ROBOCO_TEST_MONGO_NAME", credentials.database());
        env.put("ROBOCO_TEST_MONGO_USER", credentials.user());
        env.put("ROBOCO_TEST_MONGO_PASSWORD", credentials.password());
        env.put(
                "ROBOCO_TEST_MONGO_URL",
                Urls.of(
                        "mongodb",
                        credentials.user(),
                        credentials.password(),
                        endpoint,
                        credentials.database() + "?authSource=" + Urls.encode(credentials.database())));
        return Collections.unmodifiableMap(env);
    }
}
