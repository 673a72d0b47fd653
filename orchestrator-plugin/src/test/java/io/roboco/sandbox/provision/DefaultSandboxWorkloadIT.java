package io.roboco.sandbox.provision;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.redis.RedisEngine;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.Limits;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Real workloads in a sandbox with the default limits (512 MB memory, 256 MB data tmpfs, 1 CPU), with the
 * standard clients on the host against 127.0.0.1 and the credentials an agent gets:
 * <ul>
 *   <li>Postgres: {@code pgbench -i -s 10} (one million rows) and then a 10 s {@code pgbench} run succeed: WAL no
 *       longer crowds the data out of the tmpfs.</li>
 *   <li>Redis: filling it ends in Redis's own {@code OOM command not allowed} error (Jedis and {@code redis-cli}),
 *       and the container keeps running and answering: it refuses instead of being OOM-killed.</li>
 * </ul>
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DefaultSandboxWorkloadIT {
    private static final String INSTANCE =
            "it-load-" + UUID.randomUUID().toString().substring(0, 8);
    private static final EngineRegistry REGISTRY = EngineRegistry.defaults();
    private static ContainerRuntime runtime;
    private static ServiceProvisioner provisioner;

    @BeforeAll
    static void connect() {
        runtime = LocalImages.requireDockerAndImages();
        provisioner = new ServiceProvisioner(
                runtime,
                ProvisionSettings.defaults(INSTANCE).withImages(LocalImages.IMAGES),
                SecretSource.secure(),
                Clock.systemUTC());
        assertThat(provisioner.settings().limits()).isEqualTo(Limits.sandboxDefaults());
    }

    @AfterAll
    static void cleanUp() {
        runtime.list(SandboxLabels.ofInstance(INSTANCE)).forEach(c -> runtime.remove(c.id()));
        runtime.close();
    }

    @Test
    void pgbenchScale10AndATenSecondRunFitADefaultPostgresSandbox() throws Exception {
        ServiceInstance pg = provisioner.provision(
                Plans.of(provisioner.settings(), REGISTRY.require("postgres")), "it-pgbench", "it-project");
        Map<String, String> env = env(pg);
        Map<String, String> pgEnv = Map.of("PGPASSWORD", env.get("ROBOCO_TEST_DB_PASSWORD"), "PGCONNECT_TIMEOUT", "5");
        List<String> connection =
                List.of("-h", "127.0.0.1", "-p", env.get("ROBOCO_TEST_DB_PORT"), "-U", env.get("ROBOCO_TEST_DB_USER"));

        long t0 = System.nanoTime();
        Result init = run(
                concat(List.of("pgbench", "-i", "-s", "10"), connection, List.of(env.get("ROBOCO_TEST_DB_NAME"))),
                pgEnv,
                180);
        long initMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(init.exit)
                .as("pgbench -i -s 10 in a default sandbox:\n%s", init.output)
                .isZero();
        assertThat(init.output).contains("done in");

        Result bench = run(
                concat(
                        List.of("pgbench", "-T", "10", "-c", "2", "-j", "1"),
                        connection,
                        List.of(env.get("ROBOCO_TEST_DB_NAME"))),
                pgEnv,
                120);
        assertThat(bench.exit).as("10 s pgbench run:\n%s", bench.output).isZero();
        assertThat(bench.output).contains("number of failed transactions: 0").contains("tps = ");
        String tps = bench.output
                .lines()
                .filter(l -> l.startsWith("tps = "))
                .findFirst()
                .orElse("?");
        String used = LocalImages.docker("exec", pg.containerId(), "df", "-m", PostgresDataDir.PATH)
                .lines()
                .reduce((a, b) -> b)
                .orElse("?");
        System.out.println("[figure] default postgres sandbox: pgbench -i -s 10 in " + initMs
                + " ms; 10 s run, 2 clients: " + tps + "; data tmpfs after: " + used + " (loaded machine)");
        assertThat(runtime.isRunning(pg.containerId())).isTrue();
        provisioner.removeQuietly(pg.containerId());
    }

    @Test
    void aFullDefaultRedisSandboxRefusesWritesWithRedisOomErrorAndKeepsRunning() throws Exception {
        ServiceInstance redis = provisioner.provision(
                Plans.of(provisioner.settings(), REGISTRY.require("redis")), "it-redisfill", "it-project");
        Map<String, String> env = env(redis);
        long seed = System.nanoTime();
        System.out.println("DefaultSandboxWorkloadIT redis fill seed " + seed);
        Random random = new Random(seed);
        byte[] value = new byte[256 * 1024];
        long maxmemory = RedisEngine.maxmemory(Limits.sandboxDefaults().memoryBytes());
        long bound = 2 * maxmemory / value.length + 100; // twice what fits: the loop ends on the refusal or fails
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        String refusal = null;
        int written = 0;
        try (Jedis agent = agent(env)) {
            assertThat(agent.configGet("maxmemory"))
                    .as("CONFIG is an admin command")
                    .isEmpty();
        } catch (JedisDataException expected) {
            assertThat(expected.getMessage()).startsWith("NOPERM");
        }
        try (Jedis agent = agent(env)) {
            while (refusal == null && written < bound && System.nanoTime() < deadline) {
                random.nextBytes(value);
                try {
                    agent.set(("fill:" + written).getBytes(), value);
                    written++;
                } catch (JedisDataException e) {
                    refusal = e.getMessage();
                }
            }
            assertThat(refusal)
                    .as("after %d values of %d KB", written, value.length / 1024)
                    .isNotNull()
                    .startsWith("OOM command not allowed when used memory > 'maxmemory'");
            // The refused value's own query buffer counted too: top up with small values until even they are refused.
            String small = null;
            int topUp = 0;
            while (small == null && topUp < 100_000 && System.nanoTime() < deadline) {
                try {
                    agent.set("small:" + topUp, "x".repeat(1024));
                    topUp++;
                } catch (JedisDataException e) {
                    small = e.getMessage();
                }
            }
            assertThat(small).as("after %d small values", topUp).isNotNull().startsWith("OOM command not allowed");
            // Still a working server: reads, deletes and PING answer on the same connection.
            assertThat(agent.get(("fill:0").getBytes())).hasSize(value.length);
            assertThat(agent.ping()).isEqualTo("PONG");
            assertThat(agent.dbSize()).isEqualTo(written + topUp);

            // The standard CLI sees the same refusal for a value of the fill's size (read from stdin by -x; the
            // password through REDISCLI_AUTH, never on the command line), while this connection holds its buffers.
            Result cli = run(
                    List.of(
                            "redis-cli",
                            "-h",
                            "127.0.0.1",
                            "-p",
                            env.get("ROBOCO_TEST_REDIS_PORT"),
                            "--user",
                            env.get("ROBOCO_TEST_REDIS_USER"),
                            "-x",
                            "SET",
                            "one-more"),
                    Map.of("REDISCLI_AUTH", env.get("ROBOCO_TEST_REDIS_PASSWORD")),
                    "y".repeat(value.length),
                    30);
            assertThat(cli.output).contains("OOM command not allowed");
        }

        String state = LocalImages.docker(
                "inspect", "-f", "{{.State.Running}} {{.State.OOMKilled}} {{.RestartCount}}", redis.containerId());
        assertThat(state.strip()).isEqualTo("true false 0");
        assertThat(provisioner.isLive(REGISTRY.require("redis"), redis)).isTrue();
        try (Jedis agent = agent(env)) {
            agent.del(("fill:0").getBytes());
            assertThat(agent.set("after-delete", "fits again")).isEqualTo("OK");
        }
        String usage = LocalImages.docker("stats", "--no-stream", "--format", "{{.MemUsage}}", redis.containerId())
                .strip();
        System.out.println(
                "[figure] default redis sandbox: " + written + " x " + value.length / 1024 + " KB written before \""
                        + refusal.substring(0, 25) + "...\"; container memory " + usage + ", still running");
        provisioner.removeQuietly(redis.containerId());
    }

    private static Jedis agent(Map<String, String> env) {
        Jedis jedis = new Jedis(
                new HostAndPort("127.0.0.1", Integer.parseInt(env.get("ROBOCO_TEST_REDIS_PORT"))),
                DefaultJedisClientConfig.builder()
                        .user(env.get("ROBOCO_TEST_REDIS_USER"))
                        .password(env.get("ROBOCO_TEST_REDIS_PASSWORD"))
                        .connectionTimeoutMillis(3000)
                        .socketTimeoutMillis(10_000)
                        .build());
        jedis.connect();
        return jedis;
    }

    private static Map<String, String> env(ServiceInstance instance) {
        Engine engine = REGISTRY.require(instance.service());
        return engine.env(instance.endpoint(), instance.credentials());
    }

    /** Where the Postgres engine puts the data tmpfs. */
    private static final class PostgresDataDir {
        static final String PATH = "/var/lib/postgresql/data";
    }

    private record Result(int exit, String output) {}

    @SafeVarargs
    private static List<String> concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> p : parts) {
            all.addAll(p);
        }
        return all;
    }

    /** Runs a host client with secrets in its environment; bounded by {@code timeoutSeconds}. */
    private static Result run(List<String> command, Map<String, String> env, int timeoutSeconds) throws Exception {
        return run(command, env, "", timeoutSeconds);
    }

    private static Result run(List<String> command, Map<String, String> env, String stdin, int timeoutSeconds)
            throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException(
                    command.get(0) + " is not installed (Debian postgresql-client / redis-tools;"
                            + " scripts/test.sh installs them)",
                    e);
        }
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
        try (var in = process.getOutputStream()) {
            in.write(stdin.getBytes());
        }
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(command.get(0) + " did not finish in " + timeoutSeconds + " s");
        }
        return new Result(process.exitValue(), output.join());
    }

    private static String read(InputStream in) {
        try (in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toString();
        } catch (IOException e) {
            return "(output unreadable: " + e.getMessage() + ")";
        }
    }
}
