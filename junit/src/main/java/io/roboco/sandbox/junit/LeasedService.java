package io.roboco.sandbox.junit;

import java.util.Map;

/**
 * What every leased service reads from the env dict the server answered: the keys are its engine's prefix
 * ({@code ROBOCO_TEST_DB_}, {@code ROBOCO_TEST_REDIS_}, {@code ROBOCO_TEST_MONGO_}) and {@code HOST}, {@code PORT},
 * {@code USER}, {@code PASSWORD}, {@code URL}; plus the getters every Testcontainers container has. The three service
 * types add their own ({@code database()}, {@code jdbcUrl()}, the module-specific Testcontainers getters).
 */
// Its public methods are not final: javac then adds public bridges to the public subclasses, so reflection from
// another package (AssertJ extracting, Jackson) reaches them; the subclasses are final and the class is sealed.
abstract sealed class LeasedService implements ServiceSandbox permits PostgresSandbox, RedisSandbox, MongoSandbox {
    private final String sandboxId;
    private final String service;
    private final String prefix;
    private final Map<String, String> env;

    LeasedService(String sandboxId, String service, String prefix, Map<String, String> env, String... extraKeys) {
        this.sandboxId = sandboxId;
        this.service = service;
        this.prefix = prefix;
        this.env = Map.copyOf(env);
        Env.require(env, service, prefix, "HOST", "PORT", "USER", "PASSWORD", "URL");
        Env.require(env, service, prefix, extraKeys);
    }

    /** The answered value of {@code prefix + key}. */
    final String value(String key) {
        return env.get(prefix + key);
    }

    @Override
    public String sandboxId() {
        return sandboxId;
    }

    @Override
    public String service() {
        return service;
    }

    @Override
    public String host() {
        return value("HOST");
    }

    @Override
    public int port() {
        return Integer.parseInt(value("PORT"));
    }

    @Override
    public String user() {
        return value("USER");
    }

    @Override
    public String password() {
        return value("PASSWORD");
    }

    @Override
    public String url() {
        return value("URL");
    }

    @Override
    public Map<String, String> env() {
        return env;
    }

    // --- the Testcontainers face every container has (GenericContainer's getters) ---------------------------------

    public String getHost() {
        return host();
    }

    public Integer getFirstMappedPort() {
        return port();
    }

    /** The sandbox's port, whatever the container port asked for (a sandbox has one). */
    public Integer getMappedPort(int originalPort) {
        return port();
    }

    /** {@code host:port} and what a subclass adds to it ({@code /database}). */
    String where() {
        return host() + ":" + port();
    }

    /** Never the password. */
    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + sandboxId + ", " + where() + ", user=" + user()
                + ", password=<redacted>]";
    }
}
