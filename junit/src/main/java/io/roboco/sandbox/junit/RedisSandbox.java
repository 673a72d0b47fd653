package io.roboco.sandbox.junit;

import java.util.Map;

/**
 * A leased Redis: its own ACL user (not the default one). Also has Testcontainers' {@code GenericContainer} getters
 * ({@link #getHost()}, {@link #getFirstMappedPort()}) and {@link #getRedisURI()} of the {@code RedisContainer} module.
 */
public final class RedisSandbox implements ServiceSandbox {
    private final String sandboxId;
    private final Map<String, String> env;

    RedisSandbox(String sandboxId, Map<String, String> env) {
        this.sandboxId = sandboxId;
        this.env = Map.copyOf(env);
        Env.require(env, "redis", "ROBOCO_TEST_REDIS_", "HOST", "PORT", "USER", "PASSWORD", "URL");
    }

    @Override
    public String sandboxId() {
        return sandboxId;
    }

    @Override
    public String service() {
        return "redis";
    }

    @Override
    public String host() {
        return env.get("ROBOCO_TEST_REDIS_HOST");
    }

    @Override
    public int port() {
        return Integer.parseInt(env.get("ROBOCO_TEST_REDIS_PORT"));
    }

    @Override
    public String user() {
        return env.get("ROBOCO_TEST_REDIS_USER");
    }

    @Override
    public String password() {
        return env.get("ROBOCO_TEST_REDIS_PASSWORD");
    }

    /** {@code redis://user:password@host:port}. */
    @Override
    public String url() {
        return env.get("ROBOCO_TEST_REDIS_URL");
    }

    @Override
    public Map<String, String> env() {
        return env;
    }

    // --- the Testcontainers face ---------------------------------------------------------------------------------

    public String getHost() {
        return host();
    }

    public Integer getFirstMappedPort() {
        return port();
    }

    public Integer getMappedPort(int originalPort) {
        return port();
    }

    public String getRedisURI() {
        return url();
    }

    @Override
    public String toString() {
        return "RedisSandbox[" + sandboxId + ", " + host() + ":" + port() + ", user=" + user()
                + ", password=<redacted>]";
    }
}
