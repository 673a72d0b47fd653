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
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Templates against the real daemon and the local Postgres images (15 on bookworm, 17 on trixie): a sandbox with a
 * schema of a few tables, a view, a function, a foreign key and rows is saved as a template; new sandboxes from it (as
 * the project's seed, per call through request_sandbox(template=…) and as a named sandbox) reproduce the same schema
 * digest, hold the rows, and every restored object belongs to the new agent's role. A template restores upward only
 * (15 → 17 works, 17 → 15 is refused before anything starts), a broken dump is a retryable invalid_state with nothing
 * left, and the API's list, delete and name checks answer as documented.
 */
@SuppressWarnings("unchecked")
class TemplatesIT {
    private static final String SCHEMA = """
            CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, email text UNIQUE);
            CREATE TABLE orders (id serial PRIMARY KEY, customer_id int NOT NULL REFERENCES customers (id), total numeric(10,2),
              placed timestamptz DEFAULT now());
            CREATE INDEX orders_customer_idx ON orders (customer_id);
            CREATE VIEW big_orders AS SELECT o.id, c.name, o.total FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total > 100;
            CREATE FUNCTION order_count(cid int) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT count(*) FROM orders WHERE customer_id = cid $$;
            INSERT INTO customers (name, email) VALUES ('ada', 'ada@example.test'), ('grace', 'grace@example.test'), ('linus', NULL);
            INSERT INTO orders (customer_id, total) VALUES (1, 250.00), (1, 12.50), (2, 99.99), (3, 1000.00);
            """;

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
        start(Map.of());
    }

    private void start(Map<String, String> more) {
        Map<String, String> env = new HashMap<>(Map.of(
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
                ApiClient.ADMIN_TOKEN));
        env.putAll(more);
        ServerConfig config = ServerConfig.fromEnv(env).withPort(0);
        server = new TestServer(
                config,
                DockerContainerRuntime.connect(),
                EngineRegistry.defaults(),
                JdbcSettingsStore.embedded(stateDir));
        api = server.api;
    }

    @AfterEach
    void stop() {
        String instance = server.server.instanceId();
        server.close();
        docker.list(Map.of(SandboxLabels.SANDBOX, "1", SandboxLabels.INSTANCE, instance))
                .forEach(c -> docker.remove(c.id()));
    }

    @Test
    void aTemplateSeedIsServedFromTheSeededPoolAndAPerCallTemplateLeavesThePoolAlone() throws Exception {
        stop();
        start(Map.of("ROBOCO_SANDBOX_POOL_SEEDED", "1"));
        project("shop", "15", null);
        try (Connection agent = connect(agentUrl("dev-1", "shop", "{}"));
                Statement s = agent.createStatement()) {
            s.execute(SCHEMA);
        }
        String digest = digest("dev-1");
        assertThat(api.verb("dev-1", "save_template", "{\"name\":\"shop-v1\"}").json())
                .containsEntry("ok", true);
        assertThat(api.verb("dev-1", "save_template", "{\"name\":\"shop-v2\"}").json())
                .containsEntry("ok", true);
        project("shop", "15", "shop-v1");
        assertRestoredAndOwned(
                agentUrl("dev-2", "shop", "{}")); // the first seeded request makes the project's seeded pool

        String idle = awaitIdleSeeded("shop");
        String pooled = agentUrl("dev-3", "shop", "{}");
        assertThat(containerOf("dev-3"))
                .as("dev-3's sandbox is the seeded pool's container")
                .isEqualTo(idle);
        assertThat(digest("dev-3")).isEqualTo(digest);
        assertRestoredAndOwned(pooled);

        // A per-call template other than the project's seed starts cold and leaves the project's seeded pool as it is
        // (not discarded, not claimed); asking per call for the project's own seed template is served by the pool.
        String refilled = awaitIdleSeeded("shop");
        assertRestoredAndOwned(agentUrl("dev-4", "shop", "{\"template\":\"shop-v2\"}"));
        assertThat(docker.inspect(containerOf("dev-4")).orElseThrow().labels())
                .doesNotContainKey(SandboxLabels.POOL_SEED);
        assertThat(idleSeeded("shop"))
                .as("the seeded pool's idle container is still there")
                .contains(refilled);
        assertRestoredAndOwned(agentUrl("dev-5", "shop", "{\"template\":\"shop-v1\"}"));
        assertThat(containerOf("dev-5"))
                .as(
                        "the project's own seed template, asked per call, comes from its pool (labels %s, idle now %s)",
                        docker.inspect(containerOf("dev-5")).orElseThrow().labels(), idleSeeded("shop"))
                .isEqualTo(refilled);
    }

    /** The id of the ready container of {@code project}'s seeded pool (the only seeded pool here), once the pool says so (within 180 s). */
    private String awaitIdleSeeded(String project) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (server.server.poolIdle().getOrDefault(ServerConfig.SEEDED_KEY, 0) < 1
                || idleSeeded(project).size() != 1) {
            assertThat(System.nanoTime())
                    .as("the seeded pool of %s filled within 180 s", project)
                    .isLessThan(deadline);
            Thread.sleep(200);
        }
        return idleSeeded(project).get(0);
    }

    /** Seeded pool containers of {@code project} that no sandbox record holds. */
    private List<String> idleSeeded(String project) {
        List<Map<String, Object>> records = (List<Map<String, Object>>)
                api.admin("GET", "/api/sandboxes", null).json().get("sandboxes");
        Set<String> held = new HashSet<>();
        records.forEach(r -> ((List<Map<String, Object>>) r.get("containers"))
                .forEach(c -> held.add((String) c.get("container_id"))));
        return docker
                .list(Map.of(SandboxLabels.SANDBOX, "1", SandboxLabels.INSTANCE, server.server.instanceId()))
                .stream()
                .filter(c ->
                        String.valueOf(c.labels().get(SandboxLabels.POOL_SEED)).startsWith(project + ":"))
                .map(c -> c.id())
                .filter(id -> !held.contains(id))
                .sorted()
                .toList();
    }

    private String containerOf(String slug) {
        Map<String, Object> record = ((List<Map<String, Object>>) api.admin("GET", "/api/sandboxes?owner=" + slug, null)
                        .json()
                        .get("sandboxes"))
                .get(0);
        return (String)
                ((List<Map<String, Object>>) record.get("containers")).get(0).get("container_id");
    }

    @Test
    void aTemplateRoundTripReproducesTheSchemaDigestWithEveryObjectTheNewAgentsOwn() throws Exception {
        project("shop", "15", null);
        String source = agentUrl("dev-1", "shop", "{}");
        try (Connection agent = connect(source);
                Statement s = agent.createStatement()) {
            s.execute(SCHEMA);
        }
        String digest = digest("dev-1");

        ApiClient.Reply saved =
                api.admin("POST", "/api/sandboxes/" + sandboxIdOf("dev-1") + "/templates", "{\"name\":\"shop-v1\"}");
        assertThat(saved.status()).as(saved.body()).isEqualTo(200);
        Map<String, Object> template = (Map<String, Object>) saved.json().get("template");
        assertThat(template)
                .containsEntry("name", "shop-v1")
                .containsEntry("project", "shop")
                .containsEntry("major", "15")
                .containsEntry("schema_digest", digest)
                .containsKeys("created", "size_bytes", "postgres_version");
        assertThat(((Number) template.get("size_bytes")).longValue()).isPositive();
        System.out.println("template shop-v1: " + template.get("size_bytes") + " bytes");
        assertThat(Files.exists(stateDir.resolve("templates/shop/shop-v1.sql"))).isTrue();

        List<Map<String, Object>> listed = (List<Map<String, Object>>)
                api.admin("GET", "/api/templates", null).json().get("templates");
        assertThat(listed)
                .singleElement()
                .satisfies(t -> assertThat(t)
                        .containsEntry("name", "shop-v1")
                        .containsEntry("schema_digest", digest)
                        .doesNotContainKeys("sql", "dump", "content"));

        // As another project's seed: the operator copies it there first (each project sees only its own templates).
        project("shop-seeded", "15", null);
        copy("shop-v1", "shop", "shop-seeded");
        project("shop-seeded", "15", "shop-v1");
        String seeded = agentUrl("dev-2", "shop-seeded", "{}");
        assertThat(digest("dev-2"))
                .as("the seeded sandbox has the template's schema digest")
                .isEqualTo(digest);
        assertRestoredAndOwned(seeded);

        // Per call, in the template's own project.
        String perCall = agentUrl("dev-3", "shop", "{\"template\":\"shop-v1\"}");
        assertThat(digest("dev-3"))
                .as("request_sandbox(template=…) has the template's schema digest")
                .isEqualTo(digest);
        assertRestoredAndOwned(perCall);
        assertThat(urlOf(api.verb("dev-3", "request_sandbox", "{\"template\":\"shop-v1\"}")))
                .as("asking again for the same template is the same sandbox")
                .isEqualTo(perCall);

        // A named sandbox (create_sandbox) from it.
        ApiClient.Reply named = api.admin(
                "POST",
                "/api/sandboxes",
                "{\"owner\":\"dev-1\",\"project\":\"shop\",\"name\":\"from-template\",\"template\":\"shop-v1\"}");
        assertThat(named.json()).as(named.body()).containsEntry("ok", true);
        Map<String, Object> created = (Map<String, Object>) named.json().get("sandbox");
        String namedUrl = ((Map<String, String>) ((List<Map<String, Object>>) created.get("services"))
                        .get(0)
                        .get("env"))
                .get("ROBOCO_TEST_DB_URL");
        assertRestoredAndOwned(namedUrl);
    }

    @Test
    void aTemplateRestoresIntoItsMajorOrNewerAndAnOlderOneIsRefusedWithNothingStarted() throws Exception {
        project("shop", "15", null);
        try (Connection agent = connect(agentUrl("dev-1", "shop", "{}"));
                Statement s = agent.createStatement()) {
            s.execute(SCHEMA);
        }
        assertThat(api.verb("dev-1", "save_template", "{\"name\":\"from-15\"}").json())
                .containsEntry("ok", true);
        String digest15 = digest("dev-1");

        project("shop17", "17", null);
        copy("from-15", "shop", "shop17");
        project("shop17", "17", "from-15");
        String on17 = agentUrl("dev-2", "shop17", "{}");
        try (Connection agent = connect(on17);
                Statement s = agent.createStatement()) {
            assertThat(single(s, "SHOW server_version_num")).startsWith("17");
        }
        assertRestoredAndOwned(on17);
        assertThat(digest("dev-2"))
                .as("the 15 template restored on 17 has the same schema digest")
                .isEqualTo(digest15);

        // A 17 template, then the same project moved to 15: the request is refused before any container starts.
        project("mixed", "17", null);
        try (Connection agent = connect(agentUrl("dev-3", "mixed", "{}"));
                Statement s = agent.createStatement()) {
            s.execute("CREATE TABLE t (id int PRIMARY KEY)");
        }
        ApiClient.Reply save17 = api.verb("dev-3", "save_template", "{\"name\":\"from-17\"}");
        assertThat(save17.json()).as(save17.body()).containsEntry("ok", true);
        assertThat((Map<String, Object>) save17.json().get("evidence")).containsEntry("major", "17");
        project("old", "15", null);
        copy("from-17", "mixed", "old");
        ApiClient.Reply seed17on15 = api.admin(
                "PUT",
                "/api/projects/old",
                "{\"sandbox_services\":[\"postgres\"],\"sandbox_versions\":{\"postgres\":\"15\"},\"sandbox_seed\":{\"postgres\":{\"template\":\"from-17\"}}}");
        assertThat(seed17on15.status())
                .as("a project seed on an older major is refused when saved")
                .isEqualTo(400);
        assertThat(seed17on15.body()).contains("from-17", "PostgreSQL 17", "15");

        project("mixed", "15", null);
        api.orchestrator("POST", "/api/agents/dev-4/spawn", "{\"role\":\"developer\",\"project\":\"mixed\"}");
        api.verb("dev-4", "give_me_work", "{\"project\":\"mixed\",\"task\":\"T-1\"}");
        ApiClient.Reply refused = api.verb("dev-4", "request_sandbox", "{\"template\":\"from-17\"}");
        assertThat(refused.json()).as(refused.body()).containsEntry("ok", false).containsEntry("error", "refused");
        assertThat((String) refused.json().get("reason"))
                .contains("from-17", "saved from PostgreSQL 17", "runs PostgreSQL 15");
        assertThat(containersOf("dev-4"))
                .as("nothing was started for the refused request")
                .isZero();
    }

    @Test
    void aTemplateUsingVectorRestoresWhereVectorIsActivatedAndFailsNamingItWhereNot() throws Exception {
        ApiClient.Reply vec = api.admin(
                "PUT",
                "/api/projects/vec",
                "{\"sandbox_services\":[\"postgres\"],\"sandbox_versions\":{\"postgres\":\"17\"},\"sandbox_extensions\":{\"postgres\":[\"vector\"]}}");
        assertThat(vec.status()).as(vec.body()).isEqualTo(200);
        try (Connection agent = connect(agentUrl("dev-1", "vec", "{}"));
                Statement s = agent.createStatement()) {
            s.execute("CREATE TABLE items (id int PRIMARY KEY, embedding vector(3))");
            s.execute("INSERT INTO items VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0,0,1]')");
        }
        ApiClient.Reply saved = api.verb("dev-1", "save_template", "{\"name\":\"vec-v1\"}");
        assertThat(saved.json()).as(saved.body()).containsEntry("ok", true);
        assertThat((Map<String, Object>) saved.json().get("evidence")).containsEntry("extensions", List.of("vector"));

        try (Connection agent = connect(agentUrl("dev-2", "vec", "{\"template\":\"vec-v1\"}"));
                Statement s = agent.createStatement()) {
            assertThat(single(s, "SELECT id FROM items ORDER BY embedding <-> '[0,0.9,0.1]' LIMIT 1"))
                    .isEqualTo("2");
            assertThat(single(
                            s, "SELECT pg_get_userbyid(relowner) = current_user FROM pg_class WHERE relname = 'items'"))
                    .isEqualTo("t");
        }

        project("novec", "17", null);
        copy("vec-v1", "vec", "novec");
        project("novec", "17", "vec-v1");
        agentUrlNone("dev-3", "novec");
        ApiClient.Reply failed = api.verb("dev-3", "request_sandbox", "{}");
        assertThat(failed.json())
                .as(failed.body())
                .containsEntry("ok", false)
                .containsEntry("error", "invalid_state")
                .containsEntry("retryable", true);
        assertThat((String) failed.json().get("reason")).contains("vector", "sandbox_extensions", "container removed");
        assertThat(containersOf("dev-3")).isZero();
    }

    /** The figures docs/data.md quotes: a pgbench scale-1 template's size, save time and restore time (no assertion on speed). */
    @Test
    void aPgbenchScaleOneTemplateSavesAndRestoresWellWithinTheExecTimeout() throws Exception {
        project("bench", "15", null);
        String url = agentUrl("dev-1", "bench", "{}");
        URI u = URI.create(url);
        String user = URLDecoder.decode(u.getRawUserInfo().split(":", 2)[0], StandardCharsets.UTF_8);
        Map<String, Object> record = ((List<Map<String, Object>>) api.admin("GET", "/api/sandboxes?owner=dev-1", null)
                        .json()
                        .get("sandboxes"))
                .get(0);
        String container = (String)
                ((List<Map<String, Object>>) record.get("containers")).get(0).get("container_id");
        var init = docker.exec(
                container,
                List.of(
                        "pgbench",
                        "-i",
                        "-s",
                        "1",
                        "-q",
                        "-U",
                        user,
                        "-h",
                        "/var/run/postgresql",
                        "-p",
                        Integer.toString(u.getPort()),
                        u.getRawPath().substring(1)),
                Map.of());
        assertThat(init.ok()).as("pgbench -i: %s", init.output()).isTrue();

        long t0 = System.nanoTime();
        ApiClient.Reply saved =
                api.admin("POST", "/api/sandboxes/" + record.get("id") + "/templates", "{\"name\":\"pgbench-1\"}");
        long saveMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(saved.status()).as(saved.body()).isEqualTo(200);
        long bytes = ((Number) ((Map<String, Object>) saved.json().get("template")).get("size_bytes")).longValue();

        agentUrlNone("dev-2", "bench");
        long t1 = System.nanoTime();
        String restored = urlOf(api.verb("dev-2", "request_sandbox", "{\"template\":\"pgbench-1\"}"));
        long restoreMs = (System.nanoTime() - t1) / 1_000_000;
        agentUrlNone("dev-3", "bench");
        long t2 = System.nanoTime();
        urlOf(api.verb("dev-3", "request_sandbox", "{}"));
        long coldMs = (System.nanoTime() - t2) / 1_000_000;
        try (Connection agent = connect(restored);
                Statement s = agent.createStatement()) {
            assertThat(count(s, "SELECT count(*) FROM pgbench_accounts")).isEqualTo(100_000);
        }
        System.out.printf(
                "pgbench scale 1 template: %d bytes; save %d ms; new sandbox from it %d ms (a cold one without: %d ms)%n",
                bytes, saveMs, restoreMs, coldMs);
        assertThat(saveMs).as("well within the 60 s exec timeout").isLessThan(30_000);
        assertThat(restoreMs).isLessThan(30_000);
    }

    @Test
    void aBrokenDumpIsARetryableInvalidStateWithNoContainerLeft() throws Exception {
        project("shop", "15", null);
        try (Connection agent = connect(agentUrl("dev-1", "shop", "{}"));
                Statement s = agent.createStatement()) {
            s.execute("CREATE TABLE t (id int PRIMARY KEY)");
        }
        assertThat(api.verb("dev-1", "save_template", "{\"name\":\"broken\"}").json())
                .containsEntry("ok", true);
        Files.writeString(
                stateDir.resolve("templates/shop/broken.sql"),
                "CREATE TABLE ok_one (id int);\nCREATE TABLE nope (id no_such_type);\n");
        project("shop", "15", "broken");
        api.orchestrator("POST", "/api/agents/dev-2/spawn", "{\"role\":\"developer\",\"project\":\"shop\"}");
        api.verb("dev-2", "give_me_work", "{\"project\":\"shop\",\"task\":\"T-1\"}");
        ApiClient.Reply failed = api.verb("dev-2", "request_sandbox", "{}");
        assertThat(failed.json())
                .as(failed.body())
                .containsEntry("ok", false)
                .containsEntry("error", "invalid_state")
                .containsEntry("retryable", true);
        assertThat((String) failed.json().get("reason")).contains("no_such_type", "container removed");
        assertThat(containersOf("dev-2")).isZero();
    }

    @Test
    void listDeleteReplaceAndBadNamesAnswerAsDocumented() throws Exception {
        project("shop", "15", null);
        agentUrl("dev-1", "shop", "{}");
        String id = sandboxIdOf("dev-1");
        for (String body : List.of(
                "{\"name\":\"Bad!\"}",
                "{\"name\":\"\"}",
                "{\"name\":\"" + "x".repeat(31) + "\"}",
                "{}",
                "{\"name\":\"ok\",\"extra\":1}",
                "{\"name\":\"ok\",\"replace\":\"yes\"}")) {
            ApiClient.Reply bad = api.admin("POST", "/api/sandboxes/" + id + "/templates", body);
            assertThat(bad.status()).as(body + " -> " + bad.body()).isEqualTo(400);
        }
        assertThat(api.admin("POST", "/api/sandboxes/sbx_nosuch/templates", "{\"name\":\"a\"}")
                        .status())
                .isEqualTo(404);
        assertThat(api.orchestrator("POST", "/api/sandboxes/" + id + "/templates", "{\"name\":\"a\"}")
                        .status())
                .as("admin only")
                .isEqualTo(403);
        assertThat(api.verb("dev-1", "save_template", "{\"name\":\"Bad!\"}").json())
                .containsEntry("ok", false)
                .containsEntry("error", "refused");

        assertThat(api.admin("POST", "/api/sandboxes/" + id + "/templates", "{\"name\":\"a\"}")
                        .status())
                .isEqualTo(200);
        ApiClient.Reply taken = api.admin("POST", "/api/sandboxes/" + id + "/templates", "{\"name\":\"a\"}");
        assertThat(taken.status()).isEqualTo(409);
        assertThat(taken.body()).contains("already exists", "replace");
        assertThat(api.admin("POST", "/api/sandboxes/" + id + "/templates", "{\"name\":\"a\",\"replace\":true}")
                        .status())
                .isEqualTo(200);
        ApiClient.Reply named =
                api.admin("POST", "/api/sandboxes", "{\"owner\":\"dev-1\",\"project\":\"shop\",\"name\":\"side\"}");
        String namedId = (String) ((Map<String, Object>) named.json().get("sandbox")).get("id");
        ApiClient.Reply fromNamed =
                api.admin("POST", "/api/sandboxes/" + namedId + "/templates", "{\"name\":\"from-named\"}");
        assertThat(fromNamed.status()).as(fromNamed.body()).isEqualTo(200);
        assertThat((Map<String, Object>) fromNamed.json().get("template"))
                .containsEntry("sandbox", namedId)
                .containsEntry("project", "shop");
        assertThat(api.admin("DELETE", "/api/templates/from-named", null).status())
                .isEqualTo(200);

        ApiClient.Reply unknownSeed = api.admin(
                "PUT",
                "/api/projects/other",
                "{\"sandbox_services\":[\"postgres\"],\"sandbox_seed\":{\"postgres\":{\"template\":\"nope\"}}}");
        assertThat(unknownSeed.status()).isEqualTo(400);
        assertThat(unknownSeed.body()).contains("no template 'nope'", "its templates: none");
        ApiClient.Reply otherProject = api.verb("dev-1", "request_sandbox", "{\"template\":\"nope\"}");
        assertThat((String) otherProject.json().get("reason")).contains("no template 'nope'", "its templates: a");
        assertThat(api.verb("dev-1", "request_sandbox", "{\"template\":\"Bad!\"}")
                        .status())
                .isEqualTo(400);
        ApiClient.Reply live = api.verb("dev-1", "request_sandbox", "{\"template\":\"a\"}");
        assertThat((String) live.json().get("reason"))
                .as("a live sandbox is not re-made from a template")
                .contains("release_sandbox first");

        assertThat(api.admin("DELETE", "/api/templates/Bad!", null).status()).isEqualTo(400);
        assertThat(api.admin("DELETE", "/api/templates/nope", null).status()).isEqualTo(404);
        assertThat(api.admin("DELETE", "/api/templates/a", null).status()).isEqualTo(200);
        assertThat(api.admin("DELETE", "/api/templates/a", null).status()).isEqualTo(404);
        List<Map<String, Object>> audit = (List<Map<String, Object>>)
                api.admin("GET", "/api/audit?limit=50", null).json().get("records");
        assertThat(audit)
                .as("saves and the deletion are audited")
                .anySatisfy(r -> assertThat(r)
                        .containsEntry("verb", "delete_template")
                        .containsEntry("agent", "operator")
                        .containsEntry("project", "shop"))
                .anySatisfy(r ->
                        assertThat(r).containsEntry("verb", "save_template").containsEntry("decision", "granted"));
        assertThat((List<?>) api.admin("GET", "/api/templates", null).json().get("templates"))
                .isEmpty();
        assertThat(Files.exists(stateDir.resolve("templates/shop/a.sql"))).isFalse();
    }

    @Test
    void overMcpSaveTemplateSavesItListTemplatesShowsItAndRequestSandboxStartsFromIt() throws Exception {
        project("shop", "15", null);
        try (Connection agent = connect(agentUrl("dev-1", "shop", "{}"));
                Statement s = agent.createStatement()) {
            s.execute(SCHEMA);
        }
        McpSyncClient saver = mcp("dev-1");
        assertThat(saver.listTools().tools())
                .extracting(McpSchema.Tool::name)
                .contains("save_template", "list_templates");
        McpSchema.CallToolResult saved =
                saver.callTool(new McpSchema.CallToolRequest("save_template", Map.of("name", "mcp-v1")));
        assertThat(saved.isError()).as(String.valueOf(saved.content())).isNotEqualTo(Boolean.TRUE);
        Map<String, Object> evidence =
                (Map<String, Object>) ((Map<String, Object>) saved.structuredContent()).get("evidence");
        assertThat((List<Map<String, Object>>) evidence.get("templates"))
                .extracting(t -> t.get("name"))
                .containsExactly("mcp-v1");
        McpSchema.CallToolResult again =
                saver.callTool(new McpSchema.CallToolRequest("save_template", Map.of("name", "mcp-v1")));
        assertThat(again.isError()).isTrue();
        assertThat(String.valueOf(again.content())).contains("already exists");
        McpSchema.CallToolResult listed = saver.callTool(new McpSchema.CallToolRequest("list_templates", Map.of()));
        assertThat(listed.isError()).as(String.valueOf(listed.content())).isNotEqualTo(Boolean.TRUE);
        assertThat((Map<String, Object>) listed.structuredContent()).containsEntry("project", "shop");
        assertThat((List<Map<String, Object>>) ((Map<String, Object>) listed.structuredContent()).get("templates"))
                .singleElement()
                .satisfies(t -> assertThat(t)
                        .containsEntry("name", "mcp-v1")
                        .containsEntry("major", "15")
                        .containsKeys("size_bytes", "schema_digest", "created"));

        agentUrlNone("dev-5", "shop");
        McpSyncClient user = mcp("dev-5");
        McpSchema.CallToolResult own =
                user.callTool(new McpSchema.CallToolRequest("request_sandbox", Map.of("template", "mcp-v1")));
        assertThat(own.isError()).as(String.valueOf(own.content())).isNotEqualTo(Boolean.TRUE);
        Map<String, Object> ownEvidence =
                (Map<String, Object>) ((Map<String, Object>) own.structuredContent()).get("evidence");
        assertRestoredAndOwned(((Map<String, String>) ((List<Map<String, Object>>) ownEvidence.get("sandboxes"))
                        .get(0)
                        .get("env"))
                .get("ROBOCO_TEST_DB_URL"));
        McpSchema.CallToolResult named = user.callTool(
                new McpSchema.CallToolRequest("request_sandbox", Map.of("name", "side", "template", "mcp-v1")));
        assertThat(named.isError()).as(String.valueOf(named.content())).isNotEqualTo(Boolean.TRUE);
        Map<String, Object> sandbox =
                (Map<String, Object>) ((Map<String, Object>) named.structuredContent()).get("sandbox");
        assertRestoredAndOwned(((Map<String, String>) ((List<Map<String, Object>>) sandbox.get("services"))
                        .get(0)
                        .get("env"))
                .get("ROBOCO_TEST_DB_URL"));
        saver.close();
        user.close();
    }

    // --- helpers ------------------------------------------------------------------------------

    private McpSyncClient mcp(String slug) {
        ApiClient.Reply minted = api.orchestrator("POST", "/api/agents/" + slug + "/token", null);
        assertThat(minted.status()).as(minted.body()).isEqualTo(200);
        String token = (String) minted.json().get("token");
        McpSyncClient client = McpClients.connect(server.server.port(), token, Duration.ofSeconds(60));
        return client;
    }

    private void agentUrlNone(String slug, String project) {
        assertThat(api.orchestrator(
                                "POST",
                                "/api/agents/" + slug + "/spawn",
                                "{\"role\":\"developer\",\"project\":\"" + project + "\"}")
                        .status())
                .isEqualTo(200);
        assertThat(api.verb(slug, "give_me_work", "{\"project\":\"" + project + "\",\"task\":\"T-1\"}")
                        .json())
                .containsEntry("ok", true);
    }

    /** Every restored table, view, sequence and function belongs to the connecting agent; rows came along. */
    private static void assertRestoredAndOwned(String url) throws SQLException {
        try (Connection agent = connect(url);
                Statement s = agent.createStatement()) {
            assertThat(count(s, "SELECT count(*) FROM customers")).isEqualTo(3);
            assertThat(count(s, "SELECT count(*) FROM big_orders")).isEqualTo(2);
            assertThat(count(s, "SELECT order_count(1)")).isEqualTo(2);
            assertThat(count(
                            s,
                            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'"
                                    + " AND c.relkind IN ('r','v','S','i')"))
                    .isGreaterThanOrEqualTo(8);
            assertThat(count(
                            s,
                            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'"
                                    + " AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = current_user)"))
                    .as("foreign-owned relations")
                    .isZero();
            assertThat(count(
                            s,
                            "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'"
                                    + " AND p.proowner <> (SELECT oid FROM pg_roles WHERE rolname = current_user)"))
                    .as("foreign-owned functions")
                    .isZero();
            assertThatInsertsWork(s);
        }
    }

    private static void assertThatInsertsWork(Statement s) throws SQLException {
        s.execute("INSERT INTO customers (name) VALUES ('new one')");
        s.execute("DELETE FROM customers WHERE name = 'new one'");
    }

    /** The operator shares template {@code name} of project {@code from} with project {@code to} by copying it there. */
    private void copy(String name, String from, String to) {
        ApiClient.Reply reply = api.admin(
                "POST", "/api/templates/" + name + "/copy", "{\"from\":\"" + from + "\",\"to\":\"" + to + "\"}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    }

    private void project(String id, String major, String templateSeed) {
        String seed =
                templateSeed == null ? "" : ",\"sandbox_seed\":{\"postgres\":{\"template\":\"" + templateSeed + "\"}}";
        ApiClient.Reply reply = api.admin(
                "PUT",
                "/api/projects/" + id,
                "{\"sandbox_services\":[\"postgres\"],\"sandbox_versions\":{\"postgres\":\"" + major + "\"}" + seed
                        + "}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    }

    private String agentUrl(String slug, String project, String args) {
        assertThat(api.orchestrator(
                                "POST",
                                "/api/agents/" + slug + "/spawn",
                                "{\"role\":\"developer\",\"project\":\"" + project + "\"}")
                        .status())
                .isEqualTo(200);
        assertThat(api.verb(slug, "give_me_work", "{\"project\":\"" + project + "\",\"task\":\"T-1\"}")
                        .json())
                .containsEntry("ok", true);
        return urlOf(api.verb(slug, "request_sandbox", args));
    }

    private static String urlOf(ApiClient.Reply reply) {
        assertThat(reply.json()).as(reply.body()).containsEntry("ok", true);
        Map<String, Object> sandbox = ((List<Map<String, Object>>)
                        ((Map<String, Object>) reply.json().get("evidence")).get("sandboxes"))
                .get(0);
        return ((Map<String, String>) sandbox.get("env")).get("ROBOCO_TEST_DB_URL");
    }

    private String digest(String slug) {
        ApiClient.Reply reply = api.verb(slug, "snapshot_schema", "{\"name\":\"now\"}");
        assertThat(reply.json()).as(reply.body()).containsEntry("ok", true);
        return (String) ((Map<String, Object>) reply.json().get("evidence")).get("digest");
    }

    private String sandboxIdOf(String slug) {
        List<Map<String, Object>> records = (List<Map<String, Object>>)
                api.admin("GET", "/api/sandboxes?owner=" + slug, null).json().get("sandboxes");
        return (String) records.get(0).get("id");
    }

    private long containersOf(String slug) {
        return docker.list(Map.of(
                        SandboxLabels.SANDBOX,
                        "1",
                        SandboxLabels.INSTANCE,
                        server.server.instanceId(),
                        SandboxLabels.AGENT,
                        slug))
                .size();
    }

    private static long count(Statement s, String sql) throws SQLException {
        return Long.parseLong(single(s, sql));
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
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
