package io.roboco.sandbox.engine.mongo;

import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCredential;
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
import org.bson.Document;

/**
 * Short-lived mongodb-driver-sync sessions for probes and preparation, each authenticated with one
 * {@link Login}: the admin against {@code admin}, the agent against its own database (its
 * {@code authSource}). A server that refuses the credential fails the call ({@code AuthenticationFailed});
 * nothing is ever retried without credentials.
 */
final class MongoSessions {
    private MongoSessions() {}

    static void ping(ProbeTarget target, Login login) {
        run(target, login, source(target, login), new Document("ping", 1));
    }

    /** Runs one command on {@code database} as {@code login}. */
    static Document run(ProbeTarget target, Login login, String database, Document command) {
        try (MongoClient client = client(target, login)) {
            return client.getDatabase(database).runCommand(command);
        }
    }

    /** A held client for repeated {@code ping}s as {@code login}; the first ping happens here. */
    static LiveSession held(ProbeTarget target, Login login) {
        String database = source(target, login);
        Document ping = new Document("ping", 1);
        MongoClient client = client(target, login);
        try {
            client.getDatabase(database).runCommand(ping);
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        return new LiveSession() {
            @Override
            public boolean provesRunning() {
                return true;
            }

            @Override
            public void check() {
                client.getDatabase(database).runCommand(ping);
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    /** A client authenticated as {@code login}, for a caller that runs several commands; the caller closes it. */
    static MongoClient open(ProbeTarget target, Login login) {
        return client(target, login);
    }

    private static String source(ProbeTarget target, Login login) {
        return login == Login.ADMIN ? "admin" : target.credentials().database();
    }

    /**
     * A single-server client with one-second selection and connect timeouts, authenticated as {@code login} with
     * SCRAM-SHA-256 named explicitly (never negotiated): SCRAM is mutual, so the password never crosses the connection
     * and the driver fails unless the server proves it holds the user's verifier ("Server signature was invalid", or
     * "server completed challenges before client completed responses"). A listener that is not the sandbox's server
     * learns nothing it can log in with.
     */
    private static MongoClient client(ProbeTarget target, Login login) {
        Endpoint e = target.endpoint();
        Credentials c = target.credentials();
        MongoClientSettings settings = MongoClientSettings.builder()
                .applyToClusterSettings(b -> b.hosts(List.of(new ServerAddress(e.host(), e.port())))
                        .mode(ClusterConnectionMode.SINGLE)
                        .serverSelectionTimeout(1, TimeUnit.SECONDS))
                .applyToSocketSettings(
                        b -> b.connectTimeout(1, TimeUnit.SECONDS).readTimeout(5, TimeUnit.SECONDS))
                .applyToConnectionPoolSettings(b -> b.maxSize(1))
                .applicationName("roboco-sandbox")
                .retryReads(false)
                .retryWrites(false)
                .credential(MongoCredential.createScramSha256Credential(
                        login.user(c), source(target, login), login.password(c).toCharArray()))
                .build();
        return MongoClients.create(settings);
    }
}
