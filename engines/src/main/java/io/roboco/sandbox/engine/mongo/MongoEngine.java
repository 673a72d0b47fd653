package io.roboco.sandbox.engine.mongo;

import com.mongodb.MongoCommandException;
import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.Features;
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
import java.util.Set;
import org.bson.Document;

/**
 * MongoDB sandboxes. With a real {@code mongod} (official {@code mongo} images) the root user comes
 * from {@code MONGO_INITDB_ROOT_*} and the agent is a {@code readWrite} user on its own database.
 *
 * <p><b>Test stand-in:</b> the local test image is mongo-java-server, which speaks the wire protocol
 * but has <em>no authentication</em>. Against it the probes fall back to unauthenticated sessions and
 * {@code createUser} is skipped, each with a logged warning that the credentials are not enforced
 * (see {@link MongoSessions}). Nothing about a real {@code mongod} is relaxed: a wrong password there
 * fails as {@code AuthenticationFailed} and is never retried without credentials.
 *
 * <p>The agent's password reaches the server inside {@code createUser} (mongod hashes it; SCRAM-SHA-256
 * has no pre-hashed form), on the plugin's admin connection only.
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

    @Override
    public ContainerSpec containerSpec(SpecRequest request) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MONGO_INITDB_ROOT_USERNAME", request.credentials().adminUser());
        env.put("MONGO_INITDB_ROOT_PASSWORD", request.credentials().adminPassword());
        List<String> command = List.of("mongod", "--bind_ip", request.bindHost(), "--port", Integer.toString(request.port()));
        return new ContainerSpec(request.image(), env, command, DATA_DIR, request.port());
    }

    @Override
    public ReadinessProbe readiness() {
        // The port check keeps each not-yet-ready poll at a refused connect instead of a driver client that
        // waits out its one-second server selection: readiness is seen within one poll gap, not a second late.
        return Probes.allOf(Probes.tcpOpen(), mongoPing(Login.ADMIN));
    }

    @Override
    public void prepareAgent(ProbeTarget target) throws Exception {
        Credentials c = target.credentials();
        if (!MongoSessions.implementsAuthentication(target)) {
            // Nothing would enforce the user, and the password would only travel in plaintext to a
            // server that may log it (the mongo-java-server stand-in logs unknown commands verbatim).
            MongoSessions.warnUnauthenticated(target.endpoint(), "it does not implement authentication; no agent user created");
            MongoSessions.ping(target, Login.AGENT);
            return;
        }
        Document createUser = new Document("createUser", c.user())
                .append("pwd", c.password())
                .append("roles", List.of(new Document("role", "readWrite").append("db", c.database())));
        try {
            MongoSessions.run(target, Login.ADMIN, c.database(), createUser);
        } catch (MongoCommandException e) {
            if (!MongoSessions.isCommandNotFound(e)) {
                throw e;
            }
            MongoSessions.warnUnauthenticated(target.endpoint(), "createUser is not supported");
        }
        MongoSessions.ping(target, Login.AGENT);
    }

    /** {@code createUser} on the claim's new database, as a cold start does: Mongo creates a database on first write. */
    @Override
    public void prepareClaim(ProbeTarget target) throws Exception {
        prepareAgent(target);
    }

    /** One held client logged in as the agent (with the stand-in's fallback); a check is one {@code ping} on it. */
    @Override
    public LiveSession openLiveSession(ProbeTarget target) {
        return MongoSessions.held(target, Login.AGENT);
    }

    @Override
    public ReadinessProbe liveness() {
        return Probes.allOf(Probes.running(), mongoPing(Login.AGENT));
    }

    /** Mongo has no activatable features: every name is refused with "allowed: none". */
    @Override
    public void activate(String feature, ContainerExec exec, Credentials credentials, String image) {
        Features.require(this, feature);
    }

    /**
     * mongodb-driver-sync {@code ping} with {@code login}'s credential. Against a wire-compatible server
     * without authentication (the test stand-in) it falls back to an unauthenticated ping and logs
     * one warning; see {@link MongoSessions}.
     */
    static ReadinessProbe mongoPing(Login login) {
        return target -> MongoSessions.ping(target, login);
    }

    @Override
    public Map<String, String> env(Endpoint endpoint, Credentials credentials) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ROBOCO_TEST_MONGO_HOST", endpoint.host());
        env.put("ROBOCO_TEST_MONGO_PORT", Integer.toString(endpoint.port()));
        env.put("ROBOCO_TEST_MONGO_NAME", credentials.database());
        env.put("ROBOCO_TEST_MONGO_USER", credentials.user());
        env.put("ROBOCO_TEST_MONGO_PASSWORD", credentials.password());
        env.put("ROBOCO_TEST_MONGO_URL", Urls.of("mongodb", credentials.user(), credentials.password(), endpoint,
                credentials.database() + "?authSource=" + Urls.encode(credentials.database())));
        return Collections.unmodifiableMap(env);
    }
}
