package io.roboco.sandbox.engine.mongo;

import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoCredential;
import com.mongodb.MongoSecurityException;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.connection.ClusterConnectionMode;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.LiveSession;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.ProbeTarget;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Short-lived mongodb-driver-sync sessions for probes and preparation, with the one documented
 * fallback: a server that does not implement authentication at all (it answers {@code saslStart}
 * with "no such command", as the mongo-java-server test stand-in does) is talked to
 * unauthenticated, and a warning says the credentials are not enforced. A real {@code mongod} that
 * rejects a password answers {@code AuthenticationFailed} instead, which is never retried
 * unauthenticated.
 */
final class MongoSessions {
    private static final Logger LOG = LoggerFactory.getLogger(MongoEngine.class);
    static final int COMMAND_NOT_FOUND = 59;
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private MongoSessions() {
    }

    static void ping(ProbeTarget target, Login login) {
        run(target, login, login == Login.ADMIN ? "admin" : target.credentials().database(), new Document("ping", 1));
    }

    /** Runs one command on {@code database} as {@code login} (its auth source: {@code admin} for the admin, the agent's database for the agent). */
    static Document run(ProbeTarget target, Login login, String database, Document command) {
        try (MongoClient client = client(target, login)) {
            return client.getDatabase(database).runCommand(command);
        } catch (MongoSecurityException e) {
            if (!isCommandNotFound(e)) {
                throw e;
            }
            warnUnauthenticated(target.endpoint(), "it does not implement authentication (saslStart: no such command)");
            try (MongoClient client = client(target, null)) {
                return client.getDatabase(database).runCommand(command);
            }
        }
    }

    /** A held client for repeated {@code ping}s as {@code login}; falls back as {@link #run} does. */
    static LiveSession held(ProbeTarget target, Login login) {
        String database = login == Login.ADMIN ? "admin" : target.credentials().database();
        Document ping = new Document("ping", 1);
        MongoClient client = client(target, login);
        try {
            client.getDatabase(database).runCommand(ping);
        } catch (MongoSecurityException e) {
            client.close();
            if (!isCommandNotFound(e)) {
                throw e;
            }
            warnUnauthenticated(target.endpoint(), "it does not implement authentication (saslStart: no such command)");
            client = client(target, null);
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        MongoClient held = client;
        return new LiveSession() {
            @Override
            public boolean provesRunning() {
                return true;
            }

            @Override
            public void check() {
                held.getDatabase(database).runCommand(ping);
            }

            @Override
            public void close() {
                held.close();
            }
        };
    }

    /** False only for a server that answers {@code saslStart} with "no such command" (the stand-in); a real mongod is true. */
    static boolean implementsAuthentication(ProbeTarget target) {
        try (MongoClient client = client(target, Login.ADMIN)) {
            client.getDatabase("admin").runCommand(new Document("ping", 1));
            return true;
        } catch (MongoSecurityException e) {
            if (isCommandNotFound(e)) {
                return false;
            }
            throw e;
        }
    }

    static void warnUnauthenticated(Endpoint endpoint, String why) {
        if (WARNED.compareAndSet(false, true)) {
            LOG.warn("mongo sandbox at {}: {}; this image has no authentication, so the sandbox credentials are NOT enforced"
                    + " (expected only with the mongo-java-server test stand-in, never with a real mongod)", endpoint, why);
        } else {
            LOG.debug("mongo sandbox at {}: {}; credentials not enforced", endpoint, why);
        }
    }

    static boolean isCommandNotFound(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MongoCommandException command
                    && (command.getErrorCode() == COMMAND_NOT_FOUND || String.valueOf(command.getErrorMessage()).contains("no such command"))) {
                return true;
            }
        }
        return false;
    }

    /** A single-server client with one-second selection and connect timeouts; {@code login} null means unauthenticated. */
    private static MongoClient client(ProbeTarget target, Login login) {
        Endpoint e = target.endpoint();
        MongoClientSettings.Builder settings = MongoClientSettings.builder()
                .applyToClusterSettings(b -> b.hosts(List.of(new ServerAddress(e.host(), e.port())))
                        .mode(ClusterConnectionMode.SINGLE)
                        .serverSelectionTimeout(1, TimeUnit.SECONDS))
                .applyToSocketSettings(b -> b.connectTimeout(1, TimeUnit.SECONDS).readTimeout(5, TimeUnit.SECONDS))
                .applyToConnectionPoolSettings(b -> b.maxSize(1))
                .applicationName("roboco-sandbox")
                .retryReads(false)
                .retryWrites(false);
        if (login != null) {
            Credentials c = target.credentials();
            String source = login == Login.ADMIN ? "admin" : c.database();
            settings.credential(MongoCredential.createCredential(login.user(c), source, login.password(c).toCharArray()));
        }
        return MongoClients.create(settings.build());
    }
}
