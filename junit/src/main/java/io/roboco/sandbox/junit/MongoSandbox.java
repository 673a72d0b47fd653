package io.roboco.sandbox.junit;

import java.util.Map;

/**
 * A leased MongoDB database with its own user. Also has the getters of Testcontainers' {@code MongoDBContainer}
 * ({@link #getConnectionString()}, {@link #getReplicaSetUrl()}) and {@code GenericContainer}'s host and port.
 */
public final class MongoSandbox implements ServiceSandbox {
    private final String sandboxId;
    private final Map<String, String> env;

    MongoSandbox(String sandboxId, Map<String, String> env) {
        this.sandboxId = sandboxId;
        this.env = Map.copyOf(env);
        Env.require(env, "mongo", "ROBOCO_TEST_MONGO_", "HOST", "PORT", "NAME", "USER", "PASSWORD", "URL");
    }

    @Override
    public String sandboxId() {
        return sandboxId;
    }

    @Override
    public String service() {
        return "mongo";
    }

    @Override
    public String host() {
        return env.get("ROBOCO_TEST_MONGO_HOST");
    }

    @Override
    public int port() {
        return Integer.parseInt(env.get("ROBOCO_TEST_MONGO_PORT"));
    }

    public String database() {
        return env.get("ROBOCO_TEST_MONGO_NAME");
    }

    @Override
    public String user() {
        return env.get("ROBOCO_TEST_MONGO_USER");
    }

    @Override
    public String password() {
        return env.get("ROBOCO_TEST_MONGO_PASSWORD");
    }

    /** {@code mongodb://user:password@host:port/database?…}. */
    @Override
    public String url() {
        return env.get("ROBOCO_TEST_MONGO_URL");
    }

    @Override
    public Map<String, String> env() {
        return env;
    }

    // --- the Testcontainers face ---------------------------------------------------------------------------------

    public String getConnectionString() {
        return url();
    }

    public String getReplicaSetUrl() {
        return url();
    }

    public String getHost() {
        return host();
    }

    public Integer getFirstMappedPort() {
        return port();
    }

    @Override
    public String toString() {
        return "MongoSandbox[" + sandboxId + ", " + host() + ":" + port() + "/" + database() + ", user=" + user()
                + ", password=<redacted>]";
    }
}
