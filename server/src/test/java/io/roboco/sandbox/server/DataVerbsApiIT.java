package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data verbs as an orchestrator calls them, over HTTP against the real daemon and the local Postgres 17 image:
 * snapshot → the agent adds a column and an index → the diff reports exactly those two; checkpoint → the agent drops
 * a table and inserts rows → rewind brings the checkpoint back under the unchanged URL, and the sandbox stays the
 * same one (the next request_sandbox is a cache hit with the same credentials).
 */
@SuppressWarnings("unchecked")
class DataVerbsApiIT {
    private static ContainerRuntime docker;
    @TempDir
    Path stateDir;
    private TestServer server;
    private ApiClient api;

    @BeforeAll
    static void docker() {
        docker = LocalImages.requireDockerAndImages();
    }

    @AfterAll
    static void closeDocker() {
        docker.close();
    }

    @BeforeEach
    void start() {
        ServerConfig config = ServerConfig.fromEnv(Map.of("ROBOCO_SANDBOX_STATE_DIR", stateDir.toString(), "ROBOCO_SANDBOX_NETWORK", "host",
                "ROBOCO_SANDBOX_IMAGE_POSTGRES", "roboco-sandbox/postgres:15", "ROBOCO_SANDBOX_IMAGE_POSTGRES_17", "roboco-sandbox/postgres:17",
                "ROBOCO_SANDBOX_DB_ENABLED", "true",
                "ROBOCO_SANDBOX_API_TOKEN", ApiClient.API_TOKEN, "ROBOCO_SANDBOX_ADMIN_TOKEN", ApiClient.ADMIN_TOKEN)).withPort(0);
        server = new TestServer(config, DockerContainerRuntime.connect(), EngineRegistry.defaults(), JdbcSettingsStore.embedded(stateDir));
        api = server.api;
        assertThat(api.admin("PUT", "/api/projects/shop",
                "{\"sandbox_services\":[\"postgres\"],\"sandbox_versions\":{\"postgres\":\"17\"}}").status()).isEqualTo(200);
        assertThat(api.orchestrator("POST", "/api/agents/dev-1/spawn", "{\"role\":\"developer\",\"project\":\"shop\"}").status()).isEqualTo(200);
        assertThat(api.verb("dev-1", "give_me_work", "{\"project\":\"shop\",\"task\":\"T-1\"}").json()).containsEntry("ok", true);
    }

    @AfterEach
    void stop() {
        String instance = server.server.instanceId();
        server.close();
        docker.list(Map.of(SandboxLabels.SANDBOX, "1", SandboxLabels.INSTANCE, instance)).forEach(c -> docker.remove(c.id()));
    }

    private String requestUrl() {
        ApiClient.Reply reply = api.verb("dev-1", "request_sandbox", "{}");
        assertThat(reply.json()).containsEntry("ok", true);
        Map<String, Object> sandbox = ((List<Map<String, Object>>) ((Map<String, Object>) reply.json().get("evidence")).get("sandboxes")).get(0);
        return ((Map<String, String>) sandbox.get("env")).get("ROBOCO_TEST_DB_URL");
    }

    private Map<String, Object> ok(String verb, String name) {
        ApiClient.Reply reply = api.verb("dev-1", verb, "{\"name\":\"" + name + "\"}");
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.json()).as(reply.body()).containsEntry("ok", true).containsEntry("verb", verb);
        return (Map<String, Object>) reply.json().get("evidence");
    }

    @Test
    void snapshotThenAColumnAndAnIndexDiffExactlyThoseTwoAndUntouchedDiffsEmpty() throws Exception {
        String url = requestUrl();
        try (Connection agent = connect(url); Statement s = agent.createStatement()) {
            s.execute("CREATE TABLE items (id int PRIMARY KEY, title text NOT NULL)");
        }
        Map<String, Object> snapshot = ok("snapshot_schema", "before");
        assertThat(snapshot).containsEntry("format_version", 1).containsKeys("digest", "counts", "note");
        assertThat((String) snapshot.get("postgres_version")).startsWith("17.");
        assertThat((Map<String, Object>) snapshot.get("counts")).containsEntry("table", 1).containsEntry("column", 2);

        Map<String, Object> untouched = ok("diff_schema", "before");
        assertThat(untouched).containsEntry("empty", true).containsEntry("added", List.of()).containsEntry("changed", List.of());

        try (Connection agent = connect(url); Statement s = agent.createStatement()) {
            s.execute("ALTER TABLE items ADD COLUMN price numeric");
            s.execute("CREATE INDEX items_title_idx ON items (title)");
        }
        Map<String, Object> diff = ok("diff_schema", "before");
        assertThat(diff).containsEntry("empty", false).containsEntry("removed", List.of()).containsEntry("changed", List.of());
        assertThat((List<Map<String, Object>>) diff.get("added")).containsExactly(
                Map.of("kind", "column", "name", "public.items.price"), Map.of("kind", "index", "name", "public.items_title_idx"));

        // The same operations by sandbox id (the agent's verb set is a record of kind default).
        List<Map<String, Object>> records = (List<Map<String, Object>>) api.admin("GET", "/api/sandboxes?owner=dev-1", null).json().get("sandboxes");
        String id = (String) records.get(0).get("id");
        ApiClient.Reply byId = api.admin("POST", "/api/sandboxes/" + id + "/snapshots", "{\"name\":\"by-id\"}");
        assertThat(byId.status()).as(byId.body()).isEqualTo(200);
        assertThat(byId.json()).containsEntry("sandbox", id).containsEntry("name", "by-id");
        ApiClient.Reply diffById = api.admin("GET", "/api/sandboxes/" + id + "/snapshots/by-id/diff", null);
        assertThat(diffById.status()).isEqualTo(200);
        assertThat(diffById.json()).containsEntry("empty", true);
        assertThat(api.admin("GET", "/api/sandboxes/" + id + "/snapshots/none/diff", null).status()).isEqualTo(409);
        assertThat(api.admin("GET", "/api/sandboxes/sbx_nosuch/snapshots/by-id/diff", null).status()).isEqualTo(404);
        assertThat(api.orchestrator("POST", "/api/sandboxes/" + id + "/snapshots", "{\"name\":\"x\"}").status()).as("admin only").isEqualTo(403);

        ApiClient.Reply missing = api.verb("dev-1", "diff_schema", "{\"name\":\"nope\"}");
        assertThat(missing.json()).containsEntry("ok", false).containsEntry("error", "refused");
        assertThat((String) missing.json().get("reason")).contains("no snapshot 'nope'", "there are: before");
        assertThat(api.verb("dev-1", "snapshot_schema", "{}").status()).as("name is required").isEqualTo(400);
    }

    @Test
    void rewindRestoresTheCheckpointUnderTheSameUrlAndTheSameSandbox() throws Exception {
        String url = requestUrl();
        try (Connection agent = connect(url); Statement s = agent.createStatement()) {
            s.execute("CREATE TABLE customers (id int PRIMARY KEY, name text)");
            s.execute("INSERT INTO customers VALUES (1, 'ada'), (2, 'grace')");
            s.execute("CREATE TABLE audit_log (id serial PRIMARY KEY, what text)");
            s.execute("INSERT INTO audit_log (what) VALUES ('one')");
        }
        Map<String, Object> checkpoint = ok("checkpoint_sandbox", "pre-migration");
        assertThat(checkpoint).containsKeys("sessions_closed", "checkpoint_bytes", "millis");
        assertThat((String) checkpoint.get("note")).contains("sessions on the database were closed");

        try (Connection agent = connect(url); Statement s = agent.createStatement()) {
            s.execute("DROP TABLE customers");
            s.execute("INSERT INTO audit_log (what) VALUES ('two'), ('three')");
        }
        Connection open = connect(url);
        Map<String, Object> rewind = ok("rewind_sandbox", "pre-migration");
        assertThat(rewind).containsEntry("sessions_closed", 1);
        assertThat(open.isValid(2)).isFalse();
        open.close();

        try (Connection agent = connect(url); Statement s = agent.createStatement()) {
            assertThat(count(s, "SELECT count(*) FROM customers")).isEqualTo(2);
            assertThat(count(s, "SELECT count(*) FROM audit_log")).isEqualTo(1);
        }
        assertThat(requestUrl()).as("same sandbox, same credentials after the rewind").isEqualTo(url);
        ApiClient.Reply cached = api.verb("dev-1", "request_sandbox", "{}");
        assertThat(cached.json()).containsEntry("ok", true);

        ApiClient.Reply unknown = api.verb("dev-1", "rewind_sandbox", "{\"name\":\"never\"}");
        assertThat((String) unknown.json().get("reason")).contains("no checkpoint 'never'", "there are: pre-migration");
    }

    @Test
    void dataVerbsWithoutASandboxAreRefusedNamingRequestSandbox() {
        ApiClient.Reply reply = api.verb("dev-1", "snapshot_schema", "{\"name\":\"a\"}");
        assertThat(reply.json()).containsEntry("ok", false).containsEntry("error", "refused");
        assertThat((String) reply.json().get("reason")).contains("call request_sandbox first");
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Connection connect(String url) throws SQLException {
        URI u = URI.create(url);
        String[] userInfo = u.getRawUserInfo().split(":", 2);
        return DriverManager.getConnection("jdbc:postgresql://" + u.getHost() + ":" + u.getPort() + u.getRawPath(),
                URLDecoder.decode(userInfo[0], StandardCharsets.UTF_8), URLDecoder.decode(userInfo[1], StandardCharsets.UTF_8));
    }
}
