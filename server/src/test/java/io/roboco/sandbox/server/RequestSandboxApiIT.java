package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.it.Gate;
import io.roboco.sandbox.it.RecordingRuntime;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.LockWaiters;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * The issue-3 promises, tried as an orchestrator would: over HTTP, against the real daemon, the real
 * engines, the local images and the embedded settings store.
 */
@SuppressWarnings("unchecked")
class RequestSandboxApiIT {
    private static ContainerRuntime docker;

    @TempDir
    Path stateDir;

    private TestServer server;

    @BeforeAll
    static void docker() {
        docker = LocalImages.requireDockerAndImages();
    }

    @AfterAll
    static void closeDocker() {
        docker.close();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            String instance = server.server.instanceId();
            server.close();
            docker.list(Map.of(SandboxLabels.SANDBOX, "1", SandboxLabels.INSTANCE, instance))
                    .forEach(c -> docker.remove(c.id()));
        }
    }

    private TestServer start(Map<String, String> extraEnv) {
        return start(extraEnv, DockerContainerRuntime.connect());
    }

    private TestServer start(Map<String, String> extraEnv, ContainerRuntime runtime) {
        Map<String, String> env = new HashMap<>(Map.of(
                "ROBOCO_SANDBOX_STATE_DIR",
                stateDir.toString(),
                "ROBOCO_SANDBOX_NETWORK",
                "host",
                "ROBOCO_SANDBOX_IMAGE_POSTGRES",
                "roboco-sandbox/postgres:15",
                "ROBOCO_SANDBOX_IMAGE_REDIS",
                "roboco-sandbox/redis:7",
                "ROBOCO_SANDBOX_IMAGE_MONGO",
                "roboco-sandbox/mongo-compat:3",
                "ROBOCO_SANDBOX_API_TOKEN",
                ApiClient.API_TOKEN,
                "ROBOCO_SANDBOX_ADMIN_TOKEN",
                ApiClient.ADMIN_TOKEN));
        env.putAll(extraEnv);
        ServerConfig config = ServerConfig.fromEnv(env).withPort(0);
        // The server owns and closes what it is given: hand it its own runtime connection.
        server = new TestServer(config, runtime, EngineRegistry.defaults(), JdbcSettingsStore.embedded(stateDir));
        return server;
    }

    private void restart(Map<String, String> extraEnv) {
        server.close();
        server = null;
        start(extraEnv);
    }

    private void optInShopAndSpawn(TestServer t, String slug, String role) {
        assertThat(t.api.admin(
                                "PUT",
                                "/api/projects/shop",
                                "{\"name\":\"Shop\",\"sandbox_services\":[\"postgres\",\"redis\",\"mongo\"],\"sandbox_extensions\":{\"postgres\":[\"pg_trgm\"]}}")
                        .status())
                .isEqualTo(200);
        spawnAndGiveWork(t, slug, role);
    }

    private static void spawnAndGiveWork(TestServer t, String slug, String role) {
        assertThat(t.api.orchestrator(
                                "POST",
                                "/api/agents/" + slug + "/spawn",
                                "{\"role\":\"" + role + "\",\"project\":\"shop\"}")
                        .status())
                .isEqualTo(200);
        assertThat(t.api.verb(slug, "give_me_work", "{\"project\":\"shop\",\"task\":\"T-1\"}")
                        .json())
                .containsEntry("ok", true);
    }

    private static List<Map<String, Object>> sandboxes(ApiClient.Reply reply) {
        assertThat(reply.json()).as(redact(reply.body())).containsEntry("ok", true);
        return (List<Map<String, Object>>) ((Map<String, Object>) reply.json().get("evidence")).get("sandboxes");
    }

    private static Map<String, String> env(List<Map<String, Object>> sandboxes, String service) {
        return sandboxes.stream()
                .filter(s -> s.get("service").equals(service))
                .map(s -> (Map<String, String>) s.get("env"))
                .findFirst()
                .orElseThrow();
    }

    private static String redact(String body) {
        return body.replaceAll("PASSWORD\":\"[^\"]*", "PASSWORD\":\"<redacted>")
                .replaceAll("://[^@\"]*@", "://<redacted>@");
    }

    private Set<String> containerIds(String slug) {
        return docker.list(SandboxLabels.ofAgent(server.server.instanceId(), slug)).stream()
                .filter(ContainerState::running)
                .map(ContainerState::id)
                .collect(Collectors.toSet());
    }

    private static int postgresAnswer(Map<String, String> env) throws SQLException {
        try (Connection c = DriverManager.getConnection(
                        "jdbc:postgresql://" + env.get("ROBOCO_TEST_DB_HOST") + ":" + env.get("ROBOCO_TEST_DB_PORT")
                                + "/" + env.get("ROBOCO_TEST_DB_NAME") + "?connectTimeout=5",
                        env.get("ROBOCO_TEST_DB_USER"),
                        env.get("ROBOCO_TEST_DB_PASSWORD"));
                ResultSet rs = c.createStatement().executeQuery("SELECT similarity('sandbox', 'sandbx') > 0.3, 42")) {
            rs.next();
            assertThat(rs.getBoolean(1))
                    .as("pg_trgm from the project's standing set")
                    .isTrue();
            return rs.getInt(2);
        }
    }

    @Test
    void aDeveloperGetsWorkingPostgresForTheWholeSetAndASecondCallIsACacheHit() throws Exception {
        TestServer t = start(Map.of("ROBOCO_SANDBOX_DB_ENABLED", "true"));
        optInShopAndSpawn(t, "dev-1", "developer");

        List<Map<String, Object>> first =
                sandboxes(t.api.verb("dev-1", "request_sandbox", "{\"services\":[\"postgres\"]}"));

        assertThat(first).extracting(s -> s.get("service")).containsExactly("postgres");
        assertThat(first.get(0).get("available_extensions")).isEqualTo(List.of("pg_trgm"));
        assertThat(postgresAnswer(env(first, "postgres"))).isEqualTo(42);
        Set<String> ids = containerIds("dev-1");
        assertThat(docker.list(SandboxLabels.ofAgent(t.server.instanceId(), "dev-1")))
                .extracting(c -> c.labels().get(SandboxLabels.SERVICE))
                .containsExactlyInAnyOrder("postgres", "redis", "mongo");

        List<Map<String, Object>> second =
                sandboxes(t.api.verb("dev-1", "request_sandbox", "{\"services\":[\"redis\",\"mongo\"]}"));

        assertThat(second).extracting(s -> s.get("service")).containsExactly("redis", "mongo");
        assertThat(containerIds("dev-1")).isEqualTo(ids);
        Map<String, String> redis = env(second, "redis");
        try (Jedis jedis =
                new Jedis(redis.get("ROBOCO_TEST_REDIS_HOST"), Integer.parseInt(redis.get("ROBOCO_TEST_REDIS_PORT")))) {
            jedis.auth(redis.get("ROBOCO_TEST_REDIS_USER"), redis.get("ROBOCO_TEST_REDIS_PASSWORD"));
            assertThat(jedis.ping()).isEqualTo("PONG");
        }
        List<Map<String, Object>> again = sandboxes(t.api.verb("dev-1", "request_sandbox", "{}"));
        assertThat(env(again, "postgres")).isEqualTo(env(first, "postgres"));
    }

    @Test
    void guardsRefuseInTheContractsOrderAndProvisioningFailuresAreRetryable() {
        TestServer t = start(Map.of("ROBOCO_SANDBOX_IMAGE_MONGO", "roboco-sandbox/no-such-image:0"));
        t.api.admin("PUT", "/api/projects/bare", "{\"name\":\"Bare\",\"sandbox_services\":[]}");
        t.api.admin("PUT", "/api/projects/shop", "{\"name\":\"Shop\",\"sandbox_services\":[\"postgres\",\"mongo\"]}");
        t.api.orchestrator("POST", "/api/agents/dev-1/spawn", "{\"role\":\"developer\",\"project\":\"bare\"}");

        // 1. flag off (stored default, no override) — refused even though the agent also has no task.
        assertRefused(t.api.verb("dev-1", "request_sandbox", "{}"), "ROBOCO_SANDBOX_DB_ENABLED", false);

        restart(Map.of(
                "ROBOCO_SANDBOX_DB_ENABLED", "true", "ROBOCO_SANDBOX_IMAGE_MONGO", "roboco-sandbox/no-such-image:0"));
        t = server;
        // 2. no active task.
        assertRefused(t.api.verb("dev-1", "request_sandbox", "{}"), "no active, project-bound task", false);
        // 3. project has no sandbox_services.
        assertThat(t.api.verb("dev-1", "give_me_work", "{\"project\":\"bare\",\"task\":\"T-1\"}")
                        .json())
                .containsEntry("ok", true);
        assertRefused(t.api.verb("dev-1", "request_sandbox", "{}"), "has no sandbox_services", false);
        // 4. service or extension outside the opted set / allowlist: the message names the allowed set.
        assertThat(t.api.verb("dev-1", "give_me_work", "{\"project\":\"shop\",\"task\":\"T-2\"}")
                        .json())
                .containsEntry("ok", true);
        assertRefused(
                t.api.verb("dev-1", "request_sandbox", "{\"services\":[\"redis\"]}"),
                "allowed: postgres, mongo",
                false);
        assertRefused(
                t.api.verb("dev-1", "request_sandbox", "{\"extensions\":{\"postgres\":[\"plpython3u\"]}}"),
                "allowed: citext, pg_trgm, postgis, uuid-ossp, vector",
                false);
        // Roles: a reviewer does not carry the verb; a qa agent does.
        spawnAndGiveWork(t, "rev-1", "reviewer");
        assertRefused(t.api.verb("rev-1", "request_sandbox", "{}"), "does not carry request_sandbox", false);
        // A provisioning failure (mongo's image is missing) is invalid_state, retryable, and leaves nothing.
        spawnAndGiveWork(t, "qa-1", "qa");
        ApiClient.Reply failed = t.api.verb("qa-1", "request_sandbox", "{\"services\":[\"postgres\"]}");
        assertThat(failed.json())
                .containsEntry("ok", false)
                .containsEntry("error", "invalid_state")
                .containsEntry("retryable", true);
        assertThat((String) failed.json().get("reason")).contains("roboco-sandbox/no-such-image:0");
        assertThat(containerIds("qa-1")).isEmpty();
        assertThat(containerIds("dev-1")).isEmpty();
        assertThat(containerIds("rev-1")).isEmpty();
    }

    private static void assertRefused(ApiClient.Reply reply, String reasonPart, boolean retryable) {
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.json())
                .as(reply.body())
                .containsEntry("ok", false)
                .containsEntry("error", "refused")
                .containsEntry("retryable", retryable);
        assertThat((String) reply.json().get("reason")).contains(reasonPart);
    }

    @Test
    void aSandboxKilledOutOfBandIsReplacedWithFreshWorkingCredentials() throws Exception {
        TestServer t = start(Map.of("ROBOCO_SANDBOX_DB_ENABLED", "true"));
        optInShopAndSpawn(t, "dev-1", "developer");
        Map<String, String> before =
                env(sandboxes(t.api.verb("dev-1", "request_sandbox", "{\"services\":[\"postgres\"]}")), "postgres");
        String pgId = docker.list(SandboxLabels.ofAgent(t.server.instanceId(), "dev-1")).stream()
                .filter(c -> "postgres".equals(c.labels().get(SandboxLabels.SERVICE)))
                .findFirst()
                .orElseThrow()
                .id();
        LocalImages.docker("kill", pgId);

        Map<String, String> after =
                env(sandboxes(t.api.verb("dev-1", "request_sandbox", "{\"services\":[\"postgres\"]}")), "postgres");

        assertThat(after.get("ROBOCO_TEST_DB_PASSWORD")).isNotEqualTo(before.get("ROBOCO_TEST_DB_PASSWORD"));
        assertThat(postgresAnswer(after)).isEqualTo(42);
        assertThat(containerIds("dev-1")).hasSize(3).doesNotContain(pgId);
    }

    @Test
    void concurrentCallsForOneAgentLeaveOneContainerPerServiceAndDoNotDelayAnotherAgentsCacheHit() throws Exception {
        RecordingRuntime recorded = new RecordingRuntime(DockerContainerRuntime.connect());
        TestServer t = start(Map.of("ROBOCO_SANDBOX_DB_ENABLED", "true"), recorded);
        optInShopAndSpawn(t, "busy", "developer");
        spawnAndGiveWork(t, "warm", "developer");
        sandboxes(t.api.verb("warm", "request_sandbox", "{}"));

        // The busy agent's first call parks in its first container start (holding the agent's lock); the other
        // 31 are then certainly queued on that lock when the warm agent asks.
        Gate busyStart = recorded.parkNextStart(
                "busy's first start", r -> "busy".equals(r.labels().get(SandboxLabels.AGENT)));
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            List<Future<String>> busy = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                busy.add(pool.submit(() -> env(
                                sandboxes(t.api.verb("busy", "request_sandbox", "{\"services\":[\"postgres\"]}")),
                                "postgres")
                        .get("ROBOCO_TEST_DB_PASSWORD")));
            }
            busyStart.awaitParked(Duration.ofSeconds(60));
            LockWaiters.await(SandboxManager.class.getName(), "ensure", 31, Duration.ofSeconds(60));

            long start = System.nanoTime();
            sandboxes(t.api.verb("warm", "request_sandbox", "{\"services\":[\"postgres\"]}"));
            long warmMillis = (System.nanoTime() - start) / 1_000_000;

            // The warm agent's hit came back while every busy call was still held: it waited for none of them.
            assertThat(busy).noneMatch(Future::isDone);
            busyStart.open();
            Set<String> passwords = new HashSet<>();
            for (Future<String> f : busy) {
                passwords.add(f.get(120, TimeUnit.SECONDS));
            }
            System.out.println(
                    "[figure] cache hit of another agent while 32 calls of one agent were held in its cold provisioning: "
                            + warmMillis + " ms");
            assertThat(passwords).hasSize(1);
            assertThat(busyStart.overstayed()).isFalse();
            assertThat(docker.list(SandboxLabels.ofAgent(t.server.instanceId(), "busy")))
                    .extracting(c -> c.labels().get(SandboxLabels.SERVICE))
                    .containsExactlyInAnyOrder("postgres", "redis", "mongo");
        } finally {
            busyStart.open();
            pool.shutdownNow();
        }
    }

    @Test
    void everyEngagementEndingVerbAndContainerRemovalLeaveNoContainer() throws Exception {
        TestServer t = start(Map.of("ROBOCO_SANDBOX_DB_ENABLED", "true"));
        t.api.admin("PUT", "/api/projects/shop", "{\"name\":\"Shop\",\"sandbox_services\":[\"redis\"]}");
        for (String verb : List.of("i_am_done", "unclaim", "i_am_idle", "pass_review", "fail_review", "i_documented")) {
            String slug = "a-" + verb.replace('_', '-');
            // QA agents end their engagement with pass_review / fail_review; developers with the others.
            spawnAndGiveWork(t, slug, verb.endsWith("_review") ? "qa" : "developer");
            sandboxes(t.api.verb(slug, "request_sandbox", "{}"));
            assertThat(containerIds(slug)).hasSize(1);
            ApiClient.Reply ended = t.api.verb(slug, verb, "{}");
            assertThat(ended.json()).as(verb + ": " + ended.body()).containsEntry("ok", true);
            assertThat(docker.list(SandboxLabels.ofAgent(t.server.instanceId(), slug)))
                    .as(verb)
                    .isEmpty();
        }
        spawnAndGiveWork(t, "gone", "qa");
        sandboxes(t.api.verb("gone", "request_sandbox", "{}"));
        assertThat(t.api.orchestrator("DELETE", "/api/agents/gone", null).status())
                .isEqualTo(200);
        assertThat(docker.list(SandboxLabels.ofAgent(t.server.instanceId(), "gone")))
                .isEmpty();

        spawnAndGiveWork(t, "twice", "developer");
        sandboxes(t.api.verb("twice", "request_sandbox", "{}"));
        assertThat(t.api.verb("twice", "release_sandbox", "{}").json()).containsEntry("ok", true);
        assertThat(t.api.verb("twice", "release_sandbox", "{}").json()).containsEntry("ok", true);
        assertThat(containerIds("twice")).isEmpty();
    }

    @Test
    void theFlagIsPendingUntilRestartAndSettingsAndAuditSurviveIt() {
        TestServer t = start(Map.of());
        t.api.admin("PUT", "/api/projects/shop", "{\"name\":\"Shop\",\"sandbox_services\":[\"redis\"]}");
        spawnAndGiveWork(t, "dev-1", "developer");
        assertRefused(t.api.verb("dev-1", "request_sandbox", "{}"), "ROBOCO_SANDBOX_DB_ENABLED", false);

        assertThat(t.api.admin("PUT", "/api/flags/ROBOCO_SANDBOX_DB_ENABLED", "{\"enabled\":true}")
                        .status())
                .isEqualTo(200);
        String flags = t.api.admin("GET", "/api/flags", null).body();
        assertThat(flags)
                .contains("\"stored\":true")
                .contains("\"effective\":false")
                .contains("\"pending_restart\":true");
        assertRefused(t.api.verb("dev-1", "request_sandbox", "{}"), "ROBOCO_SANDBOX_DB_ENABLED", false);

        restart(Map.of());
        t = server;
        assertThat(t.api.admin("GET", "/api/flags", null).body())
                .contains("\"effective\":true")
                .contains("\"pending_restart\":false");
        assertThat(t.api.admin("GET", "/api/projects/shop", null).body()).contains("redis");
        assertThat(t.api.admin("GET", "/api/audit?agent=dev-1", null).body())
                .contains("refused")
                .contains("ROBOCO_SANDBOX_DB_ENABLED");
        assertThat(sandboxes(t.api.verb("dev-1", "request_sandbox", "{}")))
                .extracting(s -> s.get("service"))
                .containsExactly("redis");
    }
}
