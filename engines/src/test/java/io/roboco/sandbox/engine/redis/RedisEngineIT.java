package io.roboco.sandbox.engine.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.DockerCli;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineImages;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.Features;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.RunningSandbox;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;

/**
 * The Redis engine against a real container on 127.0.0.1 (host network, the sandbox limits and security
 * options), driven only through the {@link Engine} SPI: spec → docker run → readiness → prepareAgent →
 * activate → what the agent can and cannot do → liveness → removal. The image defaults to the locally
 * built test image; override with {@code -Droboco.it.image.redis=...}.
 */
class RedisEngineIT {
    static final String IMAGE = System.getProperty("roboco.it.image.redis", "roboco-sandbox/redis:7");

    @BeforeAll
    static void dockerAndImageArePresent() {
        EngineImages.requireLocal(IMAGE);
    }

    @Test
    void redisAgentUsesDataAndSearchCommandsButNoAdministration() throws Exception {
        RedisEngine engine = new RedisEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, IMAGE)) {
            System.out.println(sandbox);
            assertThat(DockerCli.exec(sandbox.id)
                            .exec(List.of("sh", "-c", "grep '^Uid:' /proc/1/status"))
                            .stdout())
                    .as("redis-server runs as a non-root user")
                    .doesNotMatch("(?s)Uid:\\s+0\\s.*");
            try (Jedis admin = RedisEngine.connect(sandbox.target, Login.ADMIN)) {
                assertThat(admin.configGet("save")).containsEntry("save", "");
                assertThat(admin.configGet("appendonly")).containsEntry("appendonly", "no");
                assertThat(admin.configGet("port")).containsEntry("port", Integer.toString(sandbox.spec.port()));
            }
            long t0 = System.nanoTime();
            engine.prepareAgent(sandbox.target);
            System.out.printf("redis prepareAgent %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            long t1 = System.nanoTime();
            engine.activate(Features.require(engine, "search"), sandbox.exec, sandbox.credentials, sandbox.image);
            System.out.printf("redis activate search %d ms%n", (System.nanoTime() - t1) / 1_000_000);
            long t2 = System.nanoTime();
            engine.activate(
                    Features.require(engine, "search"),
                    sandbox.exec,
                    sandbox.credentials,
                    sandbox.image); // now a no-op
            System.out.printf("redis activate search again (no-op) %d ms%n", (System.nanoTime() - t2) / 1_000_000);
            for (String missing : List.of("json", "bloom")) {
                assertThatThrownBy(() -> engine.activate(
                                Features.require(engine, missing), sandbox.exec, sandbox.credentials, sandbox.image))
                        .isInstanceOf(FeatureUnavailableException.class)
                        .hasMessageContaining("'" + missing + "'");
            }

            try (Jedis agent = RedisEngine.connect(sandbox.target, Login.AGENT)) {
                agent.set("k", "v");
                assertThat(agent.get("k")).isEqualTo("v");
                assertThat(agent.keys("*")).contains("k");
                agent.hset("doc:1", "title", "hello sandbox");
                command(agent, "FT.CREATE", "idx", "SCHEMA", "title", "TEXT");
                command(agent, "FT.ADD", "idx", "doc:2", "1.0", "FIELDS", "title", "hello world");
                Object found = command(agent, "FT.SEARCH", "idx", "hello");
                assertThat(found).asString().startsWith("[1");
                assertThat(agent.flushDB()).isEqualTo("OK");
                for (String[] denied : new String[][] {
                    {"MODULE", "LOAD", "/usr/lib/redis/modules/redisearch.so"},
                    {"MODULE", "LIST"},
                    {"CONFIG", "SET", "dir", "/tmp"},
                    {"CONFIG", "GET", "requirepass"},
                    {"DEBUG", "SLEEP", "0"},
                    {"SHUTDOWN", "NOSAVE"},
                    {"ACL", "SETUSER", "x", "on", "+@all"},
                    {"ACL", "LIST"},
                    {"MONITOR"},
                    {"REPLICAOF", "127.0.0.1", "1"},
                    {"SAVE"},
                    {"BGSAVE"},
                    {"FAILOVER"},
                    {"CLIENT", "KILL", "ID", "1"}
                }) {
                    assertThatThrownBy(() -> command(agent, denied))
                            .as(String.join(" ", denied))
                            .isInstanceOf(JedisDataException.class)
                            .message()
                            .matches(
                                    m -> m.startsWith("NOPERM") || m.contains("command not allowed"),
                                    "NOPERM or not allowed");
                }
            }
            long t3 = System.nanoTime();
            engine.liveness().check(sandbox.target);
            System.out.printf("redis liveness %d ms%n", (System.nanoTime() - t3) / 1_000_000);
            assertThatThrownBy(() -> engine.liveness()
                            .check(sandbox.withAgentPassword("wrong" + sandbox.credentials.password())))
                    .hasMessageContaining("WRONGPASS");
            String inspect = DockerCli.inspect(sandbox.id);
            assertThat(inspect).doesNotContain(sandbox.credentials.password());
            assertThat(inspect.replaceAll("\"REDIS_ADMIN_PASSWORD=[A-Za-z0-9]+\"", ""))
                    .doesNotContain(sandbox.credentials.adminPassword());
        }
    }

    private static Object command(Jedis jedis, String... args) {
        ProtocolCommand name = () -> SafeEncoder.encode(args[0]);
        Object reply = jedis.sendCommand(name, Arrays.copyOfRange(args, 1, args.length));
        return render(reply);
    }

    private static Object render(Object reply) {
        if (reply instanceof byte[] bytes) {
            return SafeEncoder.encode(bytes);
        }
        if (reply instanceof List<?> list) {
            return list.stream().map(RedisEngineIT::render).toList();
        }
        return reply;
    }
}
