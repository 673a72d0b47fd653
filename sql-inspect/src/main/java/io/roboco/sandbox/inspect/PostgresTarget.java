package io.roboco.sandbox.inspect;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import java.util.Objects;

/**
 * The Postgres sandbox to inspect, reached with the <em>agent's</em> credential: inspection sees exactly what
 * the agent's own role may see, never more. {@link #toString()} leaves the password out.
 */
public record PostgresTarget(String host, int port, String database, String user, String password) {
    public PostgresTarget {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    /** The agent's pair of a sandbox's credentials; the admin pair is never used for inspection. */
    public static PostgresTarget ofAgent(Endpoint endpoint, Credentials credentials) {
        return new PostgresTarget(
                endpoint.host(), endpoint.port(), credentials.database(), credentials.user(), credentials.password());
    }

    @Override
    public String toString() {
        return "PostgresTarget[" + user + "@" + host + ":" + port + "/" + database + ", password=<redacted>]";
    }
}
