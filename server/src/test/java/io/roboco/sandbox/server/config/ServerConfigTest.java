package io.roboco.sandbox.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerConfigTest {

    private static Map<String, String> env(String... kv) {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", "/home/op");
        for (int i = 0; i < kv.length; i += 2) {
            env.put(kv[i], kv[i + 1]);
        }
        return env;
    }

    @Test
    void defaultsWhenNothingIsSet() {
        ServerConfig c = ServerConfig.fromEnv(env());
        assertThat(c.port()).isEqualTo(7070);
        assertThat(c.stateDir()).isEqualTo(Path.of("/home/op/.roboco-sandbox"));
        assertThat(c.stateUrl()).isNull();
        assertThat(c.dbEnabledOverride()).isNull();
        assertThat(c.network()).isEqualTo(NetworkMode.host());
        assertThat(c.readyTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.janitorTick()).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.janitorGrace()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.images()).isEmpty();
    }

    @Test
    void readsTheOperatorsLimitMaximumsAndRefusesOnesBelowTheDefaults() {
        assertThat(ServerConfig.fromEnv(env()).maxLimits()).isEqualTo(Limits.operatorMaximums());
        ServerConfig c = ServerConfig.fromEnv(env(
                "ROBOCO_SANDBOX_MAX_MEMORY",
                "4g",
                "ROBOCO_SANDBOX_MAX_DATA_SIZE",
                "1536m",
                "ROBOCO_SANDBOX_MAX_CPUS",
                "1.5"));
        assertThat(c.maxLimits().memoryBytes()).isEqualTo(4L << 30);
        assertThat(c.maxLimits().tmpfsBytes()).isEqualTo(1536L << 20);
        assertThat(c.maxLimits().nanoCpus()).isEqualTo(1_500_000_000L);
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_MAX_MEMORY", "256m")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_MAX_MEMORY=256m is below the sandbox default 512m");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_MAX_DATA_SIZE", "big")))
                .hasMessageContaining("ROBOCO_SANDBOX_MAX_DATA_SIZE: 'big' is not a size");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_MAX_CPUS", "0.5")))
                .hasMessageContaining(
                        "ROBOCO_SANDBOX_MAX_CPUS='0.5' must be a number of CPUs of at least the default 1");
    }

    @Test
    void readsEverySetting() {
        ServerConfig c = ServerConfig.fromEnv(env(
                "ROBOCO_SANDBOX_PORT",
                "8080",
                "ROBOCO_SANDBOX_STATE_DIR",
                "/srv/sbx",
                "ROBOCO_SANDBOX_DB_ENABLED",
                "true",
                "ROBOCO_SANDBOX_IMAGE_POSTGRES",
                "roboco-sandbox/postgres:15",
                "ROBOCO_SANDBOX_IMAGE_MONGO",
                "roboco-sandbox/mongo-compat:3",
                "ROBOCO_SANDBOX_NETWORK",
                "network:agents",
                "ROBOCO_SANDBOX_READY_TIMEOUT",
                "45s",
                "ROBOCO_SANDBOX_JANITOR_TICK",
                "30s",
                "ROBOCO_SANDBOX_JANITOR_GRACE",
                "5m",
                "ROBOCO_SANDBOX_STATE_URL",
                "jdbc:postgresql://127.0.0.1/sbx",
                "ROBOCO_SANDBOX_STATE_USER",
                "sbx",
                "ROBOCO_SANDBOX_STATE_PASSWORD",
                "pw-not-printed"));
        assertThat(c.port()).isEqualTo(8080);
        assertThat(c.dbEnabledOverride()).isTrue();
        assertThat(c.images())
                .containsEntry("postgres", "roboco-sandbox/postgres:15")
                .containsEntry("mongo", "roboco-sandbox/mongo-compat:3");
        assertThat(c.network()).isEqualTo(NetworkMode.named("agents"));
        assertThat(c.janitorGrace()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.toString()).doesNotContain("pw-not-printed");
    }

    @Test
    void readsImagesAndPoolSizesPerMajor() {
        ServerConfig c = ServerConfig.fromEnv(env(
                "ROBOCO_SANDBOX_IMAGE_POSTGRES",
                "roboco-sandbox/postgres:15",
                "ROBOCO_SANDBOX_IMAGE_POSTGRES_17",
                "roboco-sandbox/postgres:17",
                "ROBOCO_SANDBOX_POOL_POSTGRES_17",
                "2",
                "ROBOCO_SANDBOX_POOL_POSTGRES",
                "1"));
        c.validateAgainst(EngineRegistry.defaults());
        assertThat(c.defaultImages()).containsOnly(Map.entry("postgres", "roboco-sandbox/postgres:15"));
        assertThat(c.majorImages()).containsOnly(Map.entry("postgres", Map.of("17", "roboco-sandbox/postgres:17")));
        assertThat(c.poolKeys()).containsOnly(Map.entry("postgres", 1), Map.entry("postgres:17", 2));
    }

    @Test
    void refusesAMajorTheEngineDoesNotHave() {
        ServerConfig c = ServerConfig.fromEnv(env("ROBOCO_SANDBOX_IMAGE_POSTGRES_12", "postgres:12-alpine"));
        assertThatThrownBy(() -> c.validateAgainst(EngineRegistry.defaults()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_IMAGE_POSTGRES_12 names no postgres major; known: 15, 16, 17");
        ServerConfig redis = ServerConfig.fromEnv(env("ROBOCO_SANDBOX_POOL_REDIS_7", "1"));
        assertThatThrownBy(() -> redis.validateAgainst(EngineRegistry.defaults()))
                .hasMessageContaining("ROBOCO_SANDBOX_POOL_REDIS_7 names no redis major; known: none");
    }

    @Test
    void refusesContradictionsNamingTheSetting() {
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_STATE_USER", "sbx")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_STATE_URL");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_JANITOR_GRACE", "10s")))
                .hasMessageContaining(
                        "ROBOCO_SANDBOX_JANITOR_GRACE (10s) must be longer than ROBOCO_SANDBOX_READY_TIMEOUT (30s)");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env(
                        "ROBOCO_SANDBOX_API_TOKEN",
                        "same-token-0123456789",
                        "ROBOCO_SANDBOX_ADMIN_TOKEN",
                        "same-token-0123456789")))
                .hasMessageContaining("must differ");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_ADMIN_TOKEN", "short")))
                .hasMessageContaining("ROBOCO_SANDBOX_ADMIN_TOKEN must be at least 16");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_STATE_URL", "jdbc:mysql://x/y")))
                .hasMessageContaining("jdbc:postgresql://");
    }

    @Test
    void warmPoolSizesPerEngineDefaultToNone() {
        assertThat(ServerConfig.fromEnv(env()).poolSizes()).isEmpty();
        ServerConfig c =
                ServerConfig.fromEnv(env("ROBOCO_SANDBOX_POOL_POSTGRES", "2", "ROBOCO_SANDBOX_POOL_REDIS", "0"));
        assertThat(c.poolSizes()).containsEntry("postgres", 2).containsEntry("redis", 0);
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_POOL_POSTGRES", "many")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_POOL_POSTGRES='many' is not a number");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_POOL_POSTGRES", "99")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("0-16");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_POOL_MYSQL", "1"))
                        .validateAgainst(EngineRegistry.defaults()))
                .hasMessageContaining("ROBOCO_SANDBOX_POOL_MYSQL names no engine");
    }

    @Test
    void seededPoolSizeIsItsOwnSettingNotAnEngine() {
        assertThat(ServerConfig.fromEnv(env()).seededPoolSize()).isZero();
        ServerConfig c =
                ServerConfig.fromEnv(env("ROBOCO_SANDBOX_POOL_SEEDED", "2", "ROBOCO_SANDBOX_POOL_POSTGRES", "1"));
        c.validateAgainst(EngineRegistry.defaults()); // "seeded" names no engine, and is not refused
        assertThat(c.seededPoolSize()).isEqualTo(2);
        assertThat(c.poolKeys()).containsOnlyKeys("postgres");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_POOL_SEEDED", "17")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_POOL_SEEDED=17 is out of range");
    }

    @Test
    void refusesMalformedValues() {
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_PORT", "70000")))
                .hasMessageContaining("ROBOCO_SANDBOX_PORT");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_PORT", "http")))
                .hasMessageContaining("ROBOCO_SANDBOX_PORT");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_DB_ENABLED", "maybe")))
                .hasMessageContaining("ROBOCO_SANDBOX_DB_ENABLED");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_NETWORK", "bridge")))
                .hasMessageContaining("ROBOCO_SANDBOX_NETWORK");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_JANITOR_TICK", "5 minutes")))
                .hasMessageContaining("ROBOCO_SANDBOX_JANITOR_TICK");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_READY_TIMEOUT", "0s")))
                .hasMessageContaining("longer than zero");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_IMAGE_", "x")))
                .hasMessageContaining("ROBOCO_SANDBOX_IMAGE_");
    }

    @Test
    void durationsParseUnits() {
        assertThat(Durations.parse("X", "500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("X", "30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("X", "5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Durations.parse("X", "1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90s");
    }

    @Test
    void anAgentsContainerNameIsTakenInNetworkModeOnly() {
        ServerConfig c = ServerConfig.fromEnv(
                env("ROBOCO_SANDBOX_NETWORK", "network:agents", "ROBOCO_SANDBOX_AGENT_CONTAINER", "agent-{slug}"));
        assertThat(c.network()).isEqualTo(new NetworkMode.Named("agents", "agent-{slug}"));
        assertThat(((NetworkMode.Named) c.network()).agentContainer("dev-1")).contains("agent-dev-1");
        assertThat(((NetworkMode.Named) c.network()).agentContainer("job:nightly"))
                .isEmpty();

        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_AGENT_CONTAINER", "agent-{slug}")))
                .hasMessageContaining("ROBOCO_SANDBOX_AGENT_CONTAINER applies to network mode only");
        assertThatThrownBy(() -> ServerConfig.fromEnv(
                        env("ROBOCO_SANDBOX_NETWORK", "network:agents", "ROBOCO_SANDBOX_AGENT_CONTAINER", "agent")))
                .hasMessageContaining("{slug}");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env(
                        "ROBOCO_SANDBOX_NETWORK", "network:agents", "ROBOCO_SANDBOX_AGENT_CONTAINER", "a b {slug}")))
                .hasMessageContaining("ROBOCO_SANDBOX_AGENT_CONTAINER");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_NETWORK", "network:a/b")))
                .hasMessageContaining("ROBOCO_SANDBOX_NETWORK");
    }
}
