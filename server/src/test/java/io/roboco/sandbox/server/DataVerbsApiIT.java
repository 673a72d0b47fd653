package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.server.config.ServerConfig;
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
import java.time.Duration;
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
    private ServerConfig config;
    private JdbcSettingsStore store;

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
        config = ServerConfig.fromEnv(Map.of(
                        "ROBOCO_SANDBOX_STATE_DIR",
                        stateDir.toString(),
                        "ROBOCO_SANDBOX_NETWORK",
                        "host",
                        "ROBOCO_SANDBOX_IMAGE_POSTGRES",
                        "roboco-sandbox/postgres:15",
                        "ROBOCO_SANDBOX_IMAGE_POSTGRES_17",
                        "roboco-sandbox/postgres:17",
                        "ROBOCO_SANDBOX_DB_ENABLED",
                        "true",
                        "ROBOCO_SANDBOX_API_TOKEN",
                        ApiClient.API_TOKEN,
                        "ROBOCO_SANDBOX_ADMIN_TOKEN",
                        ApiClient.ADMIN_TOKEN))
                .withPort(0);
        store = JdbcSettingsStore.embedded(stateDir);
        server = new TestServer(config, DockerContainerRuntime.connect(), EngineRegistry.defaults(), store);
        api = server.api;
        assertThat(api.admin(
                                "PUT",
                                "/api/projects/shop",
                                "{\"sandbox_services\":[\"postgres\"],\"sandbox_versions\":{\"postgres\":\"17\"}}")
                        .status())
                .isEqualTo(200);
        assertThat(api.orchestrator("POST", "/api/agents/dev-1/spawn", "{\"role\":\"developer\",\"project\":\"shop\"}")
                        .status())
                .isEqualTo(200);
        assertThat(api.verb("dev-1", "give_me_work", "{\"project\":\"shop\",\"task\":\"T-1\"}")
                        .json())
                .containsEntry("ok", true);
    }

    @AfterEach
    void stop() {
        String instance = server.server.instanceId();
        server.close();
        store.close();
        docker.list(Map.of(SandboxLabels.SANDBOX, "1", SandboxLabels.INSTANCE, instance))
                .forEach(c -> docker.remove(c.id()));
    }

    private String requestUrl() {
        ApiClient.Reply reply = api.verb("dev-1", "request_sandbox", "{}");
        assertThat(reply.json()).containsEntry("ok", true);
        Map<String, Object> sandbox = ((List<Map<String, Object>>)
                        ((Map<String, Object>) reply.json().get("evidence")).get("sandboxes"))
                .get(0);
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
        try (Connection agent = connect(url);
                Statement s = agent.createStatement()) {
            s.execute("CREATE TABLE items (id int PRIMARY KEY, title text NOT NULL)");
        }
        Map<String, Object> snapshot = ok("snapshot_schema", "before");
        assertThat(snapshot).containsEntry("format_version", 1).containsKeys("digest", "counts", "note");
        assertThat((String) snapshot.get("postgres_version")).startsWith("17.");
        assertThat((Map<String, Object>) snapshot.get("counts"))
                .containsEntry("table", 1)
                .containsEntry("column", 2);

        Map<String, Object> untouched = ok("diff_schema", "before");
        assertThat(untouched)
                .containsEntry("empty", true)
                .containsEntry("added", List.of())
                .containsEntry("changed", List.of());

        try (Connection agent = connect(url);
                Statement s = agent.createStatement()) {
            s.execute("ALTER TABLE items ADD COLUMN price numeric");
            s.execute("CREATE INDEX items_title_idx ON items (title)");
        }
        Map<String, Object> diff = ok("diff_schema", "before");
        assertThat(diff)
                .containsEntry("empty", false)
                .containsEntry("removed", List.of())
                .containsEntry("changed", List.of());
        assertThat((List<Map<String, Object>>) diff.get("added"))
                .containsExactly(
                        Map.of("kind", "column", "name", "public.items.price"),
                        Map.of("kind", "index", "name", "public.items_title_idx"));

        // The same operations by sandbox id (the agent's verb set is a record of kind default).
        List<Map<String, Object>> records = (List<Map<String, Object>>)
                api.admin("GET", "/api/sandboxes?owner=dev-1", null).json().get("sandboxes");
        String id = (String) records.get(0).get("id");
        ApiClient.Reply byId = api.admin("POST", "/api/sandboxes/" + id + "/snapshots", "{\"name\":\"by-id\"}");
        assertThat(byId.status()).as(byId.body()).isEqualTo(200);
        assertThat(byId.json()).containsEntry("sandbox", id).containsEntry("name", "by-id");
        ApiClient.Reply diffById = api.admin("GET", "/api/sandboxes/" + id + "/snapshots/by-id/diff", null);
        assertThat(diffById.status()).isEqualTo(200);
        assertThat(diffById.json()).containsEntry("empty", true);
        assertThat(api.admin("GET", "/api/sandboxes/" + id + "/snapshots/none/diff", null)
                        .status())
                .isEqualTo(409);
        assertThat(api.admin("GET", "/api/sandboxes/sbx_nosuch/snapshots/by-id/diff", null)
                        .status())
                .isEqualTo(404);
        assertThat(api.orchestrator("POST", "/api/sandboxes/" + id + "/snapshots", "{\"name\":\"x\"}")
                        .status())
                .as("admin only")
                .isEqualTo(403);

        ApiClient.Reply missing = api.verb("dev-1", "diff_schema", "{\"name\":\"nope\"}");
        assertThat(missing.json()).containsEntry("ok", false).containsEntry("error", "refused");
        assertThat((String) missing.json().get("reason")).contains("no snapshot 'nope'", "there are: before");
        assertThat(api.verb("dev-1", "snapshot_schema", "{}").status())
                .as("name is required")
                .isEqualTo(400);
    }

    @Test
    void rewindRestoresTheCheckpointUnderTheSameUrlAndTheSameSandbox() throws Exception {
        String url = requestUrl();
        try (Connection agent = connect(url);
                Statement s = agent.createStatement()) {
            s.execute("CREATE TABLE customers (id int PRIMARY KEY, name text)");
            s.execute("INSERT INTO customers VALUES (1, 'ada'), (2, 'grace')");
            s.execute("CREATE TABLE audit_log (id serial PRIMARY KEY, what text)");
            s.execute("INSERT INTO audit_log (what) VALUES ('one')");
        }
        Map<String, Object> checkpoint = ok("checkpoint_sandbox", "pre-migration");
        assertThat(checkpoint).containsKeys("sessions_closed", "checkpoint_bytes", "millis");
        assertThat((String) checkpoint.get("note")).contains("sessions on the database were closed");

        try (Connection agent = connect(url);
                Statement s = agent.createStatement()) {
            s.execute("DROP TABLE customers");
            s.execute("INSERT INTO audit_log (what) VALUES ('two'), ('three')");
        }
        Connection open = connect(url);
        Map<String, Object> rewind = ok("rewind_sandbox", "pre-migration");
        assertThat(rewind).containsEntry("sessions_closed", 1);
        assertThat(open.isValid(2)).isFalse();
        open.close();

        try (Connection agent = connect(url);
                Statement s = agent.createStatement()) {
            assertThat(count(s, "SELECT count(*) FROM customers")).isEqualTo(2);
            assertThat(count(s, "SELECT count(*) FROM audit_log")).isEqualTo(1);
        }
        assertThat(requestUrl())
                .as("same sandbox, same credentials after the rewind")
                .isEqualTo(url);
        ApiClient.Reply cached = api.verb("dev-1", "request_sandbox", "{}");
        assertThat(cached.json()).containsEntry("ok", true);

        ApiClient.Reply unknown = api.verb("dev-1", "rewind_sandbox", "{\"name\":\"never\"}");
        assertThat((String) unknown.json().get("reason")).contains("no checkpoint 'never'", "there are: pre-migration");
    }

    @Test
    void aNamedSandboxSnapshotsDiffsCheckpointsAndRewindsByIdOverHttpAndItsOwnersMcpTools() throws Exception {
        ApiClient.Reply created = api.admin(
                "POST", "/api/sandboxes", "{\"owner\":\"dev-1\",\"project\":\"shop\",\"name\":\"migration\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(200);
        Map<String, Object> sandbox = (Map<String, Object>) created.json().get("sandbox");
        String id = (String) sandbox.get("id");
        String url = ((Map<String, String>) ((List<Map<String, Object>>) sandbox.get("services"))
                        .get(0)
                        .get("env"))
                .get("ROBOCO_TEST_DB_URL");
        try (Connection agent = connect(url);
                Statement s = agent.createStatement()) {
            s.execute("CREATE TABLE items (id int PRIMARY KEY, title text NOT NULL)");
            s.execute("INSERT INTO items VALUES (1, 'one'), (2, 'two')");
        }
        ApiClient.Reply snapshot = api.admin("POST", "/api/sandboxes/" + id + "/snapshots", "{\"name\":\"before\"}");
        assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
        assertThat(snapshot.json()).containsEntry("sandbox", id).containsEntry("name", "before");
        assertThat((Map<String, Object>) snapshot.json().get("counts")).containsEntry("table", 1);

        String token = (String)
                api.orchestrator("POST", "/api/agents/dev-1/token", "{\"toolsets\":[\"core\",\"inspect\",\"data\"]}")
                        .json()
                        .get("token");
        try (McpSyncClient mcp = mcp(token);
                McpSyncClient other = mcpAs("dev-2")) {
            McpSchema.CallToolResult tables =
                    mcp.callTool(new McpSchema.CallToolRequest("list_tables", Map.of("sandbox", id)));
            assertThat(tables.isError())
                    .as("made over HTTP, inspected over MCP: %s", tables.structuredContent())
                    .isFalse();
            assertThat(((McpSchema.TextContent) tables.content().get(0)).text()).contains("items");
            McpSchema.CallToolResult untouched =
                    mcp.callTool(new McpSchema.CallToolRequest("diff_schema", Map.of("name", "before", "sandbox", id)));
            assertThat(untouched.isError())
                    .as(String.valueOf(untouched.structuredContent()))
                    .isFalse();
            assertThat((Map<String, Object>) ((Map<String, Object>) untouched.structuredContent()).get("evidence"))
                    .containsEntry("empty", true);

            try (Connection agent = connect(url);
                    Statement s = agent.createStatement()) {
                s.execute("ALTER TABLE items ADD COLUMN price numeric");
                s.execute("CREATE INDEX items_title_idx ON items (title)");
            }
            ApiClient.Reply diff = api.admin("GET", "/api/sandboxes/" + id + "/snapshots/before/diff", null);
            assertThat(diff.status()).as(diff.body()).isEqualTo(200);
            assertThat((List<Map<String, Object>>) diff.json().get("added"))
                    .containsExactly(
                            Map.of("kind", "column", "name", "public.items.price"),
                            Map.of("kind", "index", "name", "public.items_title_idx"));
            assertThat(diff.json()).containsEntry("removed", List.of()).containsEntry("changed", List.of());

            McpSchema.CallToolResult checkpoint = mcp.callTool(
                    new McpSchema.CallToolRequest("checkpoint_sandbox", Map.of("name", "cp", "sandbox", id)));
            assertThat(checkpoint.isError())
                    .as(String.valueOf(checkpoint.structuredContent()))
                    .isFalse();
            try (Connection agent = connect(url);
                    Statement s = agent.createStatement()) {
                s.execute("DROP TABLE items");
            }
            ApiClient.Reply rewind = api.admin("POST", "/api/sandboxes/" + id + "/checkpoints/cp/rewind", null);
            assertThat(rewind.status()).as(rewind.body()).isEqualTo(200);
            assertThat(rewind.json()).containsEntry("sandbox", id).containsEntry("name", "cp");
            try (Connection agent = connect(url);
                    Statement s = agent.createStatement()) {
                assertThat(count(s, "SELECT count(*) FROM items"))
                        .as("the same URL holds the checkpoint's data")
                        .isEqualTo(2);
            }

            McpSchema.CallToolResult notYours = other.callTool(
                    new McpSchema.CallToolRequest("snapshot_schema", Map.of("name", "x", "sandbox", id)));
            assertThat(notYours.isError()).isTrue();
            assertThat(String.valueOf(((Map<String, Object>) notYours.structuredContent()).get("reason")))
                    .contains("no live sandbox", "of yours");
        }
        ApiClient.Reply verbSet = api.verb("dev-1", "diff_schema", "{\"name\":\"before\"}");
        assertThat((String) verbSet.json().get("reason"))
                .as("the named sandbox's snapshots are not the verb set's")
                .contains("call request_sandbox first");

        assertThat(api.admin("DELETE", "/api/sandboxes/" + id, null).status()).isEqualTo(200);
        ApiClient.Reply gone = api.admin("POST", "/api/sandboxes/" + id + "/snapshots", "{\"name\":\"after\"}");
        assertThat(gone.status()).isEqualTo(409);
        assertThat((String) gone.json().get("message")).contains(id, "deleted");
    }

    private McpSyncClient mcpAs(String slug) {
        assertThat(api.orchestrator(
                                "POST",
                                "/api/agents/" + slug + "/spawn",
                                "{\"role\":\"developer\",\"project\":\"shop\"}")
                        .status())
                .isEqualTo(200);
        // At work on the same project, so that what refuses it is the sandbox's owner, not the guard chain's task step.
        assertThat(api.verb(slug, "give_me_work", "{\"project\":\"shop\",\"task\":\"T-" + slug + "\"}")
                        .ok())
                .isTrue();
        return mcp((String) api.orchestrator(
                        "POST", "/api/agents/" + slug + "/token", "{\"toolsets\":[\"core\",\"inspect\",\"data\"]}")
                .json()
                .get("token"));
    }

    private McpSyncClient mcp(String token) {
        McpSyncClient client = McpClients.connect(server.server.port(), token, Duration.ofSeconds(60));
        return client;
    }

    /** Stops the server as an operator does (its sandboxes kept for re-adoption) and starts a new one on the same state. */
    private void restart() {
        String before = server.server.instanceId();
        server.close();
        store.close();
        store = JdbcSettingsStore.embedded(stateDir);
        server = new TestServer(config, DockerContainerRuntime.connect(), EngineRegistry.defaults(), store);
        api = server.api;
        assertThat(server.server.instanceId()).isEqualTo(before);
    }

    @Test
    void snapshotsAndCheckpointsSurviveARestartThatReadoptsTheSandboxAndGoWithTheSandbox() throws Exception {
        String url = requestUrl();
        try (Connection agent = connect(url);
                Statement s = agent.createStatement()) {
            s.execute("CREATE TABLE items (id int PRIMARY KEY, title text NOT NULL)");
            s.execute("INSERT INTO items VALUES (1, 'one')");
        }
        ok("snapshot_schema", "before");
        ok("checkpoint_sandbox", "cp");
        ApiClient.Reply created =
                api.admin("POST", "/api/sandboxes", "{\"owner\":\"dev-1\",\"project\":\"shop\",\"name\":\"side\"}");
        Map<String, Object> named = (Map<String, Object>) created.json().get("sandbox");
        String namedId = (String) named.get("id");
        String namedUrl = ((Map<String, String>) ((List<Map<String, Object>>) named.get("services"))
                        .get(0)
                        .get("env"))
                .get("ROBOCO_TEST_DB_URL");
        try (Connection agent = connect(namedUrl);
                Statement s = agent.createStatement()) {
            s.execute("CREATE TABLE notes (id int PRIMARY KEY)");
        }
        assertThat(api.admin("POST", "/api/sandboxes/" + namedId + "/snapshots", "{\"name\":\"side-before\"}")
                        .status())
                .isEqualTo(200);
        List<Map<String, Object>> records = (List<Map<String, Object>>)
                api.admin("GET", "/api/sandboxes?owner=dev-1", null).json().get("sandboxes");
        String verbSetId = (String) records.stream()
                .filter(r -> "default".equals(r.get("kind")))
                .findFirst()
                .orElseThrow()
                .get("id");

        restart();

        assertThat(store.snapshotNames(verbSetId))
                .as("kept in the settings store with the record")
                .containsExactly("before");
        assertThat(requestUrl())
                .as("re-adopted: the same sandbox and credentials")
                .isEqualTo(url);
        assertThat(ok("diff_schema", "before")).containsEntry("empty", true);
        try (Connection agent = connect(url);
                Statement s = agent.createStatement()) {
            s.execute("ALTER TABLE items ADD COLUMN price numeric");
        }
        assertThat((List<Map<String, Object>>) ok("diff_schema", "before").get("added"))
                .containsExactly(Map.of("kind", "column", "name", "public.items.price"));
        ApiClient.Reply namedDiff = api.admin("GET", "/api/sandboxes/" + namedId + "/snapshots/side-before/diff", null);
        assertThat(namedDiff.status()).as(namedDiff.body()).isEqualTo(200);
        assertThat(namedDiff.json())
                .as("a re-adopted named sandbox's snapshot, on its re-opened credentials")
                .containsEntry("empty", true);
        try (McpSyncClient mcp = mcp((String)
                api.orchestrator("POST", "/api/agents/dev-1/token", "{\"toolsets\":[\"core\",\"inspect\",\"data\"]}")
                        .json()
                        .get("token"))) {
            McpSchema.CallToolResult again =
                    mcp.callTool(new McpSchema.CallToolRequest("request_sandbox", Map.of("name", "side")));
            assertThat(again.isError())
                    .as(String.valueOf(again.structuredContent()))
                    .isFalse();
            Map<String, Object> sandbox =
                    (Map<String, Object>) ((Map<String, Object>) again.structuredContent()).get("sandbox");
            assertThat(sandbox).containsEntry("id", namedId);
            assertThat(((Map<String, String>) ((List<Map<String, Object>>) sandbox.get("services"))
                                    .get(0)
                                    .get("env"))
                            .get("ROBOCO_TEST_DB_URL"))
                    .as("the same name after a restart: the same re-adopted sandbox and credentials")
                    .isEqualTo(namedUrl);
            McpSchema.CallToolResult tables =
                    mcp.callTool(new McpSchema.CallToolRequest("list_tables", Map.of("sandbox", namedId)));
            assertThat(((McpSchema.TextContent) tables.content().get(0)).text()).contains("notes");
        }

        try (Connection agent = connect(url);
                Statement s = agent.createStatement()) {
            s.execute("DROP TABLE items");
        }
        ok("rewind_sandbox", "cp");
        try (Connection agent = connect(url);
                Statement s = agent.createStatement()) {
            assertThat(count(s, "SELECT count(*) FROM items"))
                    .as("the checkpoint lived in the container through the restart")
                    .isEqualTo(1);
        }

        assertThat(api.verb("dev-1", "release_sandbox", "{}").json()).containsEntry("ok", true);
        assertThat(store.snapshotNames(verbSetId))
                .as("released: its snapshots went with its record")
                .isEmpty();
        assertThat(api.admin("DELETE", "/api/sandboxes/" + namedId, null).status())
                .isEqualTo(200);
        assertThat(store.snapshotNames(namedId)).isEmpty();
        requestUrl();
        ApiClient.Reply fresh = api.verb("dev-1", "diff_schema", "{\"name\":\"before\"}");
        assertThat((String) fresh.json().get("reason"))
                .as("a new set starts without snapshots")
                .contains("no snapshot 'before'");
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
        return DriverManager.getConnection(
                "jdbc:postgresql://" + u.getHost() + ":" + u.getPort() + u.getRawPath(),
                URLDecoder.decode(userInfo[0], StandardCharsets.UTF_8),
                URLDecoder.decode(userInfo[1], StandardCharsets.UTF_8));
    }
}
