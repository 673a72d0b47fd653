package io.roboco.sandbox.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.runtime.LogCap;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.ContainerRef;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * #18 items 3 and 10, as the attacker moves: an agent floods its sandboxes' logs (Postgres {@code RAISE} of 10 MB, a
 * statement quoting a password, Redis {@code redis.log} of 24 × 1 MB); an agent sets its database's {@code search_path} to
 * a schema of its own before asking for an extension; a checkout with a booby-trapped {@code scripts/build-images.sh}
 * (and a {@code bash} on a relative {@code PATH} entry) is the working directory of {@code doctor}; someone who can
 * write the settings store points a sandbox record at containers that are not the server's; and a server with a warm
 * pool is stopped gracefully in a state directory nobody reuses. Each class prints one {@code [figure]} line, and an
 * agent of another project keeps working with unchanged credentials.
 */
class HostileHostIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int TEN_MB = 10 * 1024 * 1024;
    private static final int ONE_MB = 1024 * 1024;
    /** The local images' base: a container of it with a plain {@code sleep} stands for someone else's. */
    private static final String BASE_IMAGE = "roboco-sandbox/base:bookworm";

    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "30s", null));

    @TempDir
    Path dir;

    // --- logs ------------------------------------------------------------------------------------------

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void floodingItsLogsLeavesAtMostTheCapOnTheHostAndPostgresWritesNoneOfIt() throws Exception {
        ApiClient api = SERVER.api();
        Bystander bystander = Bystander.standing(api, "host-bystander-logs");
        api.working("host-logs", "hostile-logs", "[\"postgres\",\"redis\"]");
        ApiClient.Reply r = api.requestSandboxRetrying("host-logs", 3);
        assertThat(r.ok()).as("%s", r).isTrue();
        String pgContainer = containerOf("host-logs", "postgres");
        String redisContainer = containerOf("host-logs", "redis");
        long pgBefore = hostLogBytes(pgContainer);

        int attempts = 0;
        int pgRefusedToLog;
        Map<String, String> pg = r.grants().get("postgres");
        try (Connection c = DriverManager.getConnection(
                        "jdbc:postgresql://" + pg.get("ROBOCO_TEST_DB_HOST") + ":" + pg.get("ROBOCO_TEST_DB_PORT") + "/"
                                + pg.get("ROBOCO_TEST_DB_NAME"),
                        pg.get("ROBOCO_TEST_DB_USER"),
                        pg.get("ROBOCO_TEST_DB_PASSWORD"));
                Statement s = c.createStatement()) {
            for (int i = 0; i < 12; i++, attempts++) {
                s.execute("DO $$BEGIN RAISE WARNING '%', repeat('w', " + TEN_MB + "); END$$");
                s.clearWarnings();
            }
            for (int i = 0; i < 3; i++, attempts++) {
                try {
                    s.execute("DO $$BEGIN RAISE EXCEPTION '%', repeat('e', " + TEN_MB + "); END$$");
                } catch (SQLException expected) {
                    // the agent's own error; the question is what reached the log
                }
            }
            try {
                attempts++;
                s.execute("SELECT 'hunter2-canary' || repeat('s', 1048576) FROM no_such_table");
            } catch (SQLException expected) {
                // an error statement: the server must not quote it in its log
            }
        }
        long pgGrowth = hostLogBytes(pgContainer) - pgBefore;
        String pgTail = LocalImages.docker("logs", "--tail", "50", pgContainer);
        pgRefusedToLog = pgGrowth < 64 * 1024 && !pgTail.contains("hunter2-canary") ? attempts : 0;

        Map<String, String> redis = r.grants().get("redis");
        int redisAttempts =
                24; // 24 MB through redis.log, past the 20 MB cap; each call waits for dockerd to drain the pipe
        try (Jedis jedis = new Jedis(
                redis.get("ROBOCO_TEST_REDIS_HOST"), Integer.parseInt(redis.get("ROBOCO_TEST_REDIS_PORT")), 60_000)) {
            jedis.auth(redis.get("ROBOCO_TEST_REDIS_USER"), redis.get("ROBOCO_TEST_REDIS_PASSWORD"));
            for (int i = 0; i < redisAttempts; i++) {
                jedis.eval("redis.log(redis.LOG_WARNING, string.rep('r', " + ONE_MB + ")) return 1", 0);
            }
        }
        attempts += redisAttempts;
        LogCap cap = LogCap.defaults();
        long slack = 256 * 1024; // one message in flight past the size check, JSON framing of the last lines
        long redisKept = hostLogBytes(redisContainer);
        long redisAttempted = (long) redisAttempts * ONE_MB;
        int redisRefused =
                (int) Math.max(0, Math.ceil((redisAttempted - Math.min(redisKept, redisAttempted)) / (double) ONE_MB));

        List<String> notCapped = new ArrayList<>();
        for (String id : Fixtures.containersOf(SERVER.server().instanceId())) {
            JsonNode logConfig = MAPPER.readTree(LocalImages.docker("inspect", id))
                    .get(0)
                    .path("HostConfig")
                    .path("LogConfig");
            if (!"json-file".equals(logConfig.path("Type").asText())
                    || !Long.toString(cap.maxFileBytes())
                            .equals(logConfig.path("Config").path("max-size").asText())
                    || !Integer.toString(cap.maxFiles())
                            .equals(logConfig.path("Config").path("max-file").asText())) {
                notCapped.add(id + " " + logConfig);
            }
        }
        bystander.assertUnharmed();
        long redisKeptAfter = Math.max(redisKept, hostLogBytes(redisContainer));
        boolean healthy = Bystander.healthy(api);
        Bystander.figure(
                "logs",
                attempts,
                pgRefusedToLog + redisRefused,
                healthy,
                "postgres_host_log_growth_bytes=" + pgGrowth
                        + " redis_host_log_bytes=" + redisKeptAfter + " redis_attempted_bytes=" + redisAttempted
                        + " cap_bytes="
                        + cap.maxTotalBytes() + " containers_without_cap=" + notCapped.size());

        assertThat(notCapped)
                .as("every sandbox container logs through json-file with the cap")
                .isEmpty();
        assertThat(pgGrowth).as("Postgres logs none of the agent's RAISE text").isLessThan(64 * 1024);
        assertThat(pgTail).as("no statement quoted in the Postgres log").doesNotContain("hunter2-canary");
        assertThat(redisKeptAfter)
                .as("the host keeps at most the cap of the Redis container's log")
                .isLessThanOrEqualTo(cap.maxTotalBytes() + slack);
        assertThat(healthy).isTrue();
    }

    /** The container of {@code agent}'s {@code service} (started for it: no warm pool on this server). */
    private static String containerOf(String agent, String service) {
        String ids = LocalImages.docker(
                        "ps",
                        "-aq",
                        "--no-trunc",
                        "--filter",
                        "label=roboco.sandbox.instance=" + SERVER.server().instanceId(),
                        "--filter",
                        "label=roboco.sandbox.agent=" + agent,
                        "--filter",
                        "label=roboco.sandbox.service=" + service)
                .strip();
        assertThat(ids.lines().toList())
                .as("one %s container of %s", service, agent)
                .hasSize(1);
        return ids;
    }

    /** Bytes of the container's log on the host: its json-file and every rotated file beside it. */
    private static long hostLogBytes(String container) throws IOException {
        Path current = Path.of(
                LocalImages.docker("inspect", "-f", "{{.LogPath}}", container).strip());
        String name = current.getFileName().toString();
        try (Stream<Path> files = Files.list(current.getParent())) {
            long total = 0;
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith(name))
                    .toList()) {
                total += Files.size(f);
            }
            return total;
        }
    }

    // --- extension activation ------------------------------------------------------------------------------

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void anExtensionAskedForAfterTheAgentRedirectedItsSearchPathStillGoesIntoPublic() throws Exception {
        ApiClient api = SERVER.api();
        Bystander bystander = Bystander.standing(api, "host-bystander-ext");
        api.working("host-ext", "hostile-ext", "[\"postgres\"]");
        ApiClient.Reply r = api.requestSandboxRetrying("host-ext", 3);
        assertThat(r.ok()).as("%s", r).isTrue();
        Map<String, String> pg = r.grants().get("postgres");
        String url = "jdbc:postgresql://" + pg.get("ROBOCO_TEST_DB_HOST") + ":" + pg.get("ROBOCO_TEST_DB_PORT") + "/"
                + pg.get("ROBOCO_TEST_DB_NAME");
        try (Connection c = DriverManager.getConnection(
                        url, pg.get("ROBOCO_TEST_DB_USER"), pg.get("ROBOCO_TEST_DB_PASSWORD"));
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA trap");
            s.execute("CREATE FUNCTION trap.lower(text) RETURNS text LANGUAGE sql AS $$ SELECT 'hijacked' $$");
            s.execute("ALTER DATABASE \"" + pg.get("ROBOCO_TEST_DB_NAME")
                    + "\" SET search_path = trap, public, pg_catalog");
        }

        ApiClient.Reply asked = api.verb("host-ext", "request_sandbox", "{\"extensions\":{\"postgres\":[\"citext\"]}}");
        assertThat(asked.ok()).as("%s", asked).isTrue();

        String schema;
        int inTrap;
        try (Connection c = DriverManager.getConnection(
                        url, pg.get("ROBOCO_TEST_DB_USER"), pg.get("ROBOCO_TEST_DB_PASSWORD"));
                Statement s = c.createStatement()) {
            schema = single(
                    s,
                    "SELECT n.nspname FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace"
                            + " WHERE e.extname = 'citext'");
            inTrap = Integer.parseInt(single(
                    s,
                    "SELECT count(*) FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n"
                            + " ON n.oid = p.pronamespace WHERE n.nspname = 'trap'"));
        }
        bystander.assertUnharmed();
        boolean healthy = Bystander.healthy(api);
        Bystander.figure(
                "extension-schema",
                1,
                "public".equals(schema) && inTrap == 1 ? 1 : 0,
                healthy,
                "extension_schema=" + schema + " functions_in_agent_schema=" + inTrap);

        assertThat(schema)
                .as("citext pinned to public, not the agent's first search_path schema")
                .isEqualTo("public");
        assertThat(inTrap)
                .as("nothing installed into the agent's schema (its own trap function only)")
                .isEqualTo(1);
        assertThat(healthy).isTrue();
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as("a row from %s", sql).isTrue();
            return rs.getString(1);
        }
    }

    // --- doctor ---------------------------------------------------------------------------------------

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void doctorRunsNoScriptAndNoBashFromTheWorkingDirectory() throws Exception {
        Bystander bystander = Bystander.standing(SERVER.api(), "host-bystander-doctor");
        Path checkout = dir.resolve("agents-checkout");
        Path marker = dir.resolve("ran");
        Files.createDirectories(checkout.resolve("scripts"));
        Files.createDirectories(checkout.resolve("images"));
        String trap = "#!/bin/sh\necho \"$0\" >> '" + marker + "'\necho 'roboco-sandbox/postgres:15 stale'\n";
        executable(checkout.resolve("scripts/build-images.sh"), trap);
        executable(checkout.resolve("bash"), trap);
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        List<String> outputs = new ArrayList<>();
        int attempts = 0;
        for (String repoRoot : new String[] {null, "."}) {
            attempts++;
            Map<String, String> env = new HashMap<>();
            env.put("PATH", ".:" + System.getenv("PATH"));
            env.put("HOME", dir.toString());
            env.put("ROBOCO_SANDBOX_STATE_DIR", dir.resolve("state").toString());
            env.put("ROBOCO_SANDBOX_URL", "http://127.0.0.1:" + closedPort);
            if (repoRoot != null) {
                env.put("ROBOCO_REPO_ROOT", repoRoot);
            }
            outputs.add(doctor(checkout, env));
        }
        boolean ran = Files.exists(marker);
        bystander.assertUnharmed();
        boolean healthy = Bystander.healthy(SERVER.api());
        Bystander.figure(
                "doctor-working-directory",
                attempts,
                ran ? 0 : attempts,
                healthy,
                "trap_ran=" + (ran ? Files.readString(marker).strip().replace('\n', ',') : "never"));

        assertThat(outputs)
                .allSatisfy(out ->
                        assertThat(out).as("doctor ran its machine checks").contains("docker"));
        assertThat(ran)
                .as("a script or bash found from the working directory ran: %s", outputs)
                .isFalse();
        assertThat(healthy).isTrue();
    }

    private static void executable(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** {@code doctor} in a child JVM standing in {@code cwd}; its output (exit 0 or 1: it ran). */
    private static String doctor(Path cwd, Map<String, String> env) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(
                        java, "-cp", System.getProperty("java.class.path"), "io.roboco.sandbox.cli.Cli", "doctor")
                .directory(cwd.toFile())
                .redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("doctor finished").isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue())
                .as("doctor's exit (0 or 1), output:\n%s", text)
                .isIn(0, 1);
        return text;
    }

    // --- graceful stop and store-named removal ---------------------------------------------------------------

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aGracefulStopLeavesNoIdlePoolAndAnAlteredStoreRowRemovesNoForeignContainer() throws Exception {
        Bystander bystander = Bystander.standing(SERVER.api(), "host-bystander-restart");
        long seed = System.nanoTime();
        System.out.println("HostileHostIT victim name seed " + seed);
        String suffix = Long.toHexString(new Random(seed).nextLong() & 0xffffffL);
        Path state = dir.resolve("state");
        Map<String, String> env = Fixtures.serverEnv(state, "1h", "2m", "30s");
        env.put("ROBOCO_SANDBOX_POOL_POSTGRES", "1");
        ServerConfig config = ServerConfig.fromEnv(env).withPort(0);
        List<String> victims = new ArrayList<>();
        String instance = null;
        RunningServer second = null;
        try {
            RunningServer first = SandboxServer.start(
                    config,
                    LocalImages.requireDockerAndImages(),
                    EngineRegistry.defaults(),
                    JdbcSettingsStore.embedded(state),
                    Clock.systemUTC(),
                    SecretSource.secure());
            instance = first.instanceId();
            int before;
            try {
                ApiClient api = new ApiClient(first.port());
                api.working("host-keeper", "hostile-restart", "[\"postgres\"]");
                assertThat(api.requestSandboxRetrying("host-keeper", 3).ok()).isTrue();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (first.poolIdle().values().stream()
                                        .mapToInt(Integer::intValue)
                                        .sum()
                                < 1
                        && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                assertThat(first.poolIdle().values().stream()
                                .mapToInt(Integer::intValue)
                                .sum())
                        .as("the pool refilled")
                        .isEqualTo(1);
                before = Fixtures.containersOf(instance).size();
                assertThat(before).as("the agent's container and the idle one").isEqualTo(2);
            } finally {
                first.close();
            }
            List<String> left = Fixtures.containersOf(instance);
            List<String> agents;
            try (SettingsStore store = JdbcSettingsStore.embedded(state)) {
                SandboxRecord record = store.sandboxes(SandboxQuery.undeletedOf(instance, Instant.now()))
                        .get(0);
                agents = record.containerIds();
                victims.add(LocalImages.docker(
                                "run",
                                "-d",
                                "--network",
                                "none",
                                "--name",
                                "host-victim-plain-" + suffix,
                                BASE_IMAGE,
                                "sleep",
                                "600")
                        .strip());
                victims.add(LocalImages.docker(
                                "run",
                                "-d",
                                "--network",
                                "none",
                                "--name",
                                "host-victim-other-" + suffix,
                                "--label",
                                "roboco.sandbox=1",
                                "--label",
                                "roboco.sandbox.instance=another-instance",
                                BASE_IMAGE,
                                "sleep",
                                "600")
                        .strip());
                victims.add(LocalImages.docker(
                                "run",
                                "-d",
                                "--network",
                                "none",
                                "--name",
                                "host-victim-lookalike-" + suffix,
                                "--label",
                                "roboco.sandbox.instance=" + instance,
                                BASE_IMAGE,
                                "sleep",
                                "600")
                        .strip());
                List<ContainerRef> altered = new ArrayList<>(record.containers());
                for (String v : victims) {
                    altered.add(new ContainerRef("postgres", v, "victim", BASE_IMAGE, List.of()));
                }
                assertThat(store.updateSandbox(withContainers(record, altered)))
                        .as("the attacker's write")
                        .isTrue();
            }
            Bystander.figure(
                    "pool-on-graceful-stop",
                    1,
                    left.equals(agents) ? 1 : 0,
                    true,
                    "containers_before_stop=" + before + " left_after_stop=" + left.size() + " agents_containers="
                            + agents.size());
            assertThat(left)
                    .as("only the agent's sandbox is kept; the idle pool container is gone")
                    .containsExactlyInAnyOrderElementsOf(agents);

            second = SandboxServer.start(
                    config,
                    LocalImages.requireDockerAndImages(),
                    EngineRegistry.defaults(),
                    JdbcSettingsStore.embedded(state),
                    Clock.systemUTC(),
                    SecretSource.secure());
            ApiClient api = new ApiClient(second.port());
            ApiClient.Reply after = api.requestSandboxRetrying("host-keeper", 3);
            for (int i = 0;
                    i < 30 && !after.ok() && Boolean.TRUE.equals(after.json().get("retryable"));
                    i++) {
                Thread.sleep(500); // re-adoption still deciding: the server answers retryable until it has
                after = api.requestSandbox("host-keeper");
            }
            int alive = 0;
            for (String v : victims) {
                if (LocalImages.docker("inspect", "-f", "{{.State.Running}}", v)
                        .strip()
                        .equals("true")) {
                    alive++;
                }
            }
            bystander.assertUnharmed();
            boolean healthy = Bystander.healthy(api) && Bystander.healthy(SERVER.api());
            Bystander.figure(
                    "store-named-removal",
                    victims.size(),
                    alive,
                    healthy,
                    "victims_alive=" + alive + "/" + victims.size() + " agent_served_after=" + after.ok());
            assertThat(alive)
                    .as("no container without this instance's labels was removed")
                    .isEqualTo(victims.size());
            assertThat(after.ok())
                    .as("the agent is served again (a fresh set: its altered record was closed): %s", after)
                    .isTrue();
            assertThat(healthy).isTrue();
        } finally {
            if (second != null) {
                second.close();
            }
            for (String v : victims) {
                LocalImages.docker("rm", "-f", v);
            }
            if (instance != null) {
                Fixtures.removeAllOf(instance);
            }
        }
    }

    private static SandboxRecord withContainers(SandboxRecord r, List<ContainerRef> containers) {
        return new SandboxRecord(
                r.id(),
                r.owner(),
                r.project(),
                r.name(),
                r.kind(),
                r.labels(),
                r.services(),
                containers,
                r.instance(),
                r.created(),
                r.expires(),
                r.maxExpires(),
                r.deleted(),
                r.deletedReason());
    }
}
