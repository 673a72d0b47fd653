package io.roboco.sandbox.junit;

import java.util.Map;

/**
 * A leased MongoDB database with its own user. Also has the getters of Testcontainers' {@code MongoDBContainer}
 * ({@link #getConnectionString()}, {@link #getReplicaSetUrl()}) and {@code GenericContainer}'s host and port.
 * {@link #url()} is {@code mongodb://user:password@host:port/database?…}.
 */
public final class MongoSandbox extends LeasedService {
    MongoSandbox(String sandboxId, Map<String, String> env) {
        super(sandboxId, "mongo", "ROBOCO_TEST_MONGO_", env, "NAME");
    }

    public String database() {
        return value("NAME");
    }

    @Override
    String where() {
        return super.where() + "/" + database();
    }

    public String getConnectionString() {
        return url();
    }

    public String getReplicaSetUrl() {
        return url();
    }
}
