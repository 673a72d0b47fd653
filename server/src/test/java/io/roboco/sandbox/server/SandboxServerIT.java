package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone server against real Docker and the real engines, over HTTP: opt a project in,
 * spawn, give work, request a sandbox, log in with the answered credentials, end the engagement.
 * Needs the daemon and the local images {@code ./scripts/test.sh} builds; a missing daemon fails.
 */
@SuppressWarnings("unchecked")
class SandboxServerIT {
    @TempDir
    Path dir;

    @Test
    void agentGetsWorkingPostgresOverHttpAndItIsGoneAfterIAmDone() throws Exception {
        ServerConfig config = ServerConfig.fromEnv(Map.of(
                        "ROBOCO_SANDBOX_STATE_DIR",
                        dir.toString(),
                        "ROBOCO_SANDBOX_DB_ENABLED",
                        "true",
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
                        ApiClient.ADMIN_TOKEN))
                .withPort(0);
        DockerContainerRuntime docker = DockerContainerRuntime.connect();
        try (TestServer t = new TestServer(config, docker, EngineRegistry.defaults(), new InMemorySettingsStore())) {
            t.working("dev-1", "developer");
            ApiClient.Reply r = t.api.verb("dev-1", "request_sandbox", "{\"services\":[\"postgres\"]}");
            assertThat(r.json())
                    .as(r.body().replaceAll("PASSWORD\":\"[^\"]*", "PASSWORD\":\"<redacted>"))
                    .containsEntry("ok", true);
            List<Map<String, Object>> sandboxes =
                    (List<Map<String, Object>>) ((Map<String, Object>) r.json().get("evidence")).get("sandboxes");
            Map<String, String> env = (Map<String, String>) sandboxes.get(0).get("env");
            assertThat(env.get("ROBOCO_TEST_DB_HOST")).isEqualTo("127.0.0.1");
            String url = "jdbc:postgresql://127.0.0.1:" + env.get("ROBOCO_TEST_DB_PORT") + "/"
                    + env.get("ROBOCO_TEST_DB_NAME");
            try (Connection c = DriverManager.getConnection(
                            url, env.get("ROBOCO_TEST_DB_USER"), env.get("ROBOCO_TEST_DB_PASSWORD"));
                    ResultSet rs = c.createStatement().executeQuery("select 41 + 1")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(42);
            }
            String password = env.get("ROBOCO_TEST_DB_PASSWORD");
            assertThat(t.api.admin("GET", "/api/sandboxes", null).body())
                    .contains("dev-1")
                    .doesNotContain(password);
            assertThat(t.api.admin("GET", "/api/audit", null).body()).doesNotContain(password);

            assertThat(t.api.verb("dev-1", "i_am_done", "{}").json()).containsEntry("ok", true);
            assertThat(docker.list(SandboxLabels.ofAgent(t.server.instanceId(), "dev-1")))
                    .isEmpty();
        }
    }
}
