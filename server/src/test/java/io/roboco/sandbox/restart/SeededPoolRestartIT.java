package io.roboco.sandbox.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.ChildServer;
import io.roboco.sandbox.it.ChildServers;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Saving a seeded project fills its seeded warm pool before any request, and that container outlives a
 * {@code kill -9} of the server: the restart re-adopts it into the project's
 * seeded pool, and the project's next sandbox is a claim of that very container, seeded before the first process died,
 * with every seeded object its agent's.
 */
class SeededPoolRestartIT {
    private static final String PROJECT = "seeded";

    @TempDir
    Path dir;

    @RegisterExtension
    final ChildServers servers = new ChildServers();

    private ChildServer server;
    private String instance;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aSeededPoolPrimedBySavingTheProjectIsReadoptedAfterKill9AndServesTheProjectsNextSandbox() throws Exception {
        Map<String, String> env = Fixtures.serverEnv(dir.resolve("state"), "1s", "40s", "30s");
        env.put("ROBOCO_SANDBOX_POOL_SEEDED", "1");
        int port = ChildServer.freePort();
        Path log = dir.resolve("server.log");
        server = servers.start(env, port, log);
        instance = Fixtures.instanceIdIn(dir.resolve("state"));
        ApiClient.Reply saved = server.api.admin(
                "PUT",
                "/api/projects/" + PROJECT,
                "{\"name\":\"Seeded\",\"sandbox_services\":[\"postgres\"],"
                        + "\"sandbox_seed\":{\"postgres\":{\"sql\":\"CREATE TABLE kept (id int PRIMARY KEY); INSERT INTO kept VALUES (7);\"}}}");
        assertThat(saved.status()).as("%s", saved).isEqualTo(200);

        // Saving the project primes its seeded pool: no request needed.
        assertThat(server.awaitLog("seeded for project " + PROJECT + " filled", 1, 150))
                .as("the seeded pool filled")
                .isTrue();
        List<String> seeded = seededContainers();
        assertThat(seeded).hasSize(1);
        ApiClient.Reply metrics = server.api.send("GET", "/metrics", null, null);
        assertThat(metrics.body())
                .as("the seeded pool's gauge")
                .containsPattern("(?m)^roboco_sandbox_pool_seeded_idle_containers 1\\.0$");

        server.kill9();
        server = servers.start(env, port, log);
        assertThat(server.awaitLog("1 pool container(s) re-adopted", 1, 120))
                .as("re-adopted at start")
                .isTrue();

        ApiClient.Reply after = request(server.api, "after-restart");
        assertThat(after.ok()).as("%s", after).isTrue();
        Map<String, Object> sandbox = onlySandboxOf(server.api, "after-restart");
        @SuppressWarnings("unchecked")
        Map<String, Object> container = ((List<Map<String, Object>>) sandbox.get("containers")).get(0);
        assertThat(container.get("container_id"))
                .as("the container seeded before the restart")
                .isEqualTo(seeded.get(0));
        assertThat(container.get("from_pool")).isEqualTo(true);
        Map<String, String> env0 = after.grants().get("postgres");
        try (Connection c = DriverManager.getConnection(
                        "jdbc:postgresql://" + env0.get("ROBOCO_TEST_DB_HOST") + ":" + env0.get("ROBOCO_TEST_DB_PORT")
                                + "/" + env0.get("ROBOCO_TEST_DB_NAME"),
                        env0.get("ROBOCO_TEST_DB_USER"),
                        env0.get("ROBOCO_TEST_DB_PASSWORD"));
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT (SELECT id FROM kept), pg_get_userbyid(relowner) = current_user,"
                                + " (SELECT count(*) FROM pg_roles WHERE rolname LIKE 'roboco\\_seeder\\_%') FROM pg_class WHERE relname = 'kept'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(7);
            assertThat(rs.getBoolean(2)).as("the seeded table is the agent's").isTrue();
            assertThat(rs.getInt(3)).as("no seeder left").isZero();
        }
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> checks = (List<Map<String, Object>>)
                server.api.admin("GET", "/api/doctor", null).json().get("checks");
        assertThat(checks)
                .filteredOn(c -> "pool".equals(c.get("name")))
                .singleElement()
                .satisfies(c -> assertThat((String) c.get("detail"))
                        .as("doctor names the seeded pools")
                        .contains("seeded pools (ROBOCO_SANDBOX_POOL_SEEDED): 1 ready per seeded project"));
        Fixtures.figure(
                "SeededPoolRestartIT: a seeded pool container made before kill -9 was re-adopted and claimed after the restart");
    }

    private static ApiClient.Reply request(ApiClient api, String agent) throws InterruptedException {
        ApiClient.Reply spawn = api.orchestrator(
                "POST", "/api/agents/" + agent + "/spawn", "{\"role\":\"developer\",\"project\":\"" + PROJECT + "\"}");
        assertThat(spawn.status()).as("%s", spawn).isEqualTo(200);
        ApiClient.Reply work = api.verb(agent, "give_me_work", "{\"project\":\"" + PROJECT + "\",\"task\":\"T-1\"}");
        assertThat(work.ok()).as("%s", work).isTrue();
        return api.requestSandboxRetrying(agent, 30);
    }

    private List<String> seededContainers() {
        String out = LocalImages.docker(
                        "ps",
                        "-q",
                        "--no-trunc",
                        "--filter",
                        "label=roboco.sandbox.instance=" + instance,
                        "--filter",
                        "label=roboco.sandbox.pool.seed")
                .strip();
        return out.isEmpty() ? List.of() : List.of(out.split("\\s+"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> onlySandboxOf(ApiClient api, String owner) {
        ApiClient.Reply r = api.admin("GET", "/api/sandboxes?owner=" + owner, null);
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        List<Map<String, Object>> sandboxes =
                (List<Map<String, Object>>) r.json().get("sandboxes");
        assertThat(sandboxes).hasSize(1);
        return sandboxes.get(0);
    }
}
