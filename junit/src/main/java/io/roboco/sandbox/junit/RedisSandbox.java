package io.roboco.sandbox.junit;

import java.util.Map;

/**
 * A leased Redis: its own ACL user (not the default one). Also has Testcontainers' {@code GenericContainer} getters
 * ({@link #getHost()}, {@link #getFirstMappedPort()}) and {@link #getRedisURI()} of the {@code RedisContainer} module.
 * {@link #url()} is {@code redis://user:password@host:port}.
 */
public final class RedisSandbox extends LeasedService {
    RedisSandbox(String sandboxId, Map<String, String> env) {
        super(sandboxId, "redis", "ROBOCO_TEST_REDIS_", env);
    }

    public String getRedisURI() {
        return url();
    }
}
