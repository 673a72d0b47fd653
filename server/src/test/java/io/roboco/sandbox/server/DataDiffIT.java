package io.roboco.sandbox.server;

import static io.roboco.sandbox.it.OfficialClients.mongo;
import static io.roboco.sandbox.it.OfficialClients.psql;
import static io.roboco.sandbox.it.OfficialClients.redis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.mcp.TypeScriptMcpClient;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * diff_data, the Done-when test of issue 23's data diff: against the real daemon and the local images, an agent's
 * scripted change after one checkpoint_sandbox, made with the official clients on the handed-out env ({@code psql},
 * {@code redis-cli}, Debian's {@code python3} with pymongo) — inserts, updates and deletes across three Postgres tables,
 * one with a composite key and one without a primary key, beside an untouched one; Redis keys added, changed and
 * removed; Mongo documents inserted, updated and deleted — and the diff reports exactly those changes, with their
 * samples, through the HTTP verb, the admin route {@code GET /api/sandboxes/{id}/checkpoints/{name}/diff} and the MCP
 * tool called by the official TypeScript SDK client. The diff changes nothing (a second one is the same) and names an
 * unknown checkpoint with the ones there are.
 */
@SuppressWarnings("unchecked")
class DataDiffIT {

    private static ContainerRuntime docker;
    private static Path stateDir;
    private static TestServer server;
    private static ApiClient api;
    private static JdbcSettingsStore store;
    private static String sandboxId;

    @BeforeAll
    static void start() throws IOException {
        docker = LocalImages.requireDockerAndImages();
        stateDir = Files.createTempDirectory("data-diff");
        ServerConfig config = ServerConfig.fromEnv(Map.of(
                        "ROBOCO_SANDBOX_STATE_DIR", stateDir.toString(),
                        "ROBOCO_SANDBOX_NETWORK", "host",
                        "ROBOCO_SANDBOX_IMAGE_POSTGRES", "roboco-sandbox/postgres:15",
                        "ROBOCO_SANDBOX_IMAGE_REDIS", "roboco-sandbox/redis:7",
                        "ROBOCO_SANDBOX_IMAGE_MONGO", "roboco-sandbox/mongo-compat:3",
                        "ROBOCO_SANDBOX_DB_ENABLED", "true",
                        "ROBOCO_SANDBOX_API_TOKEN", ApiClient.API_TOKEN,
                        "ROBOCO_SANDBOX_ADMIN_TOKEN", ApiClient.ADMIN_TOKEN))
                .withPort(0);
        store = JdbcSettingsStore.embedded(stateDir);
        server = new TestServer(config, DockerContainerRuntime.connect(), EngineRegistry.defaults(), store);
        api = server.api;
        assertThat(api.admin("PUT", "/api/projects/multi", "{\"sandbox_services\":[\"postgres\",\"redis\",\"mongo\"]}")
                        .status())
                .isEqualTo(200);
    }

    @AfterAll
    static void stop() throws IOException {
        String instance = server.server.instanceId();
        server.close();
        store.close();
        docker.list(Map.of(SandboxLabels.SANDBOX, "1", SandboxLabels.INSTANCE, instance))
                .forEach(c -> docker.remove(c.id()));
        docker.close();
        try (var files = Files.walk(stateDir)) {
            files.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void theDiffAfterAScriptedChangeReportsExactlyThoseChanges() {
        Map<String, String> env = working("dev-1");
        psql(
                env,
                "CREATE TABLE users (id int PRIMARY KEY, email text);"
                        + " INSERT INTO users SELECT g, 'u' || g || '@example.com' FROM generate_series(1, 5) g;"
                        + " CREATE TABLE order_lines (order_id int, line int, qty int, PRIMARY KEY (order_id, line));"
                        + " INSERT INTO order_lines VALUES (1, 1, 1), (1, 2, 1), (2, 1, 5);"
                        + " CREATE TABLE audit_log (at int, what text);"
                        + " INSERT INTO audit_log VALUES (1, 'boot'), (2, 'login'), (2, 'login');"
                        + " CREATE TABLE countries (code text PRIMARY KEY); INSERT INTO countries VALUES ('fr'), ('jp')");
        redis(env, "SET", "a", "1");
        redis(env, "SET", "b", "2");
        redis(env, "HSET", "h", "f", "1");
        redis(env, "SET", "same", "x");
        mongo(
                env,
                "db.orders.insert_many([{'_id': 1, 's': 'new'}, {'_id': 2, 's': 'new'}, {'_id': 3, 's': 'new'}]);"
                        + " db.untouched.insert_one({'_id': 'k'})");
        ok("dev-1", "checkpoint_sandbox", "{\"name\":\"before\"}");

        assertThat(diffVerb("dev-1", "before")).as("nothing changed yet").containsEntry("empty", true);

        // the scripted change
        psql(
                env,
                "INSERT INTO users VALUES (6, 'u6@example.com'), (7, 'u7@example.com');"
                        + " UPDATE users SET email = 'changed@example.com' WHERE id = 2; DELETE FROM users WHERE id = 5;"
                        + " UPDATE order_lines SET qty = 9 WHERE order_id = 1 AND line = 2;"
                        + " DELETE FROM order_lines WHERE order_id = 2 AND line = 1; INSERT INTO order_lines VALUES (3, 1, 1);"
                        + " INSERT INTO audit_log VALUES (3, 'logout'); DELETE FROM audit_log WHERE at = 1");
        redis(env, "SET", "c", "3");
        redis(env, "SET", "a", "10");
        redis(env, "HSET", "h", "g", "2");
        redis(env, "DEL", "b");
        mongo(
                env,
                "db.orders.insert_one({'_id': 4, 's': 'new'}); db.orders.update_one({'_id': 2}, {'$set': {'s': 'paid'}});"
                        + " db.orders.delete_one({'_id': 3})");

        Map<String, Object> diff = diffVerb("dev-1", "before");
        assertThat(diff).containsEntry("empty", false).containsEntry("checkpoint", "before");
        List<Map<String, Object>> services = (List<Map<String, Object>>) diff.get("services");
        assertThat(services).extracting(s -> s.get("service")).containsExactly("postgres", "redis", "mongo");

        Map<String, Object> postgres = services.get(0);
        assertThat(postgres).containsEntry("unchanged", 1).containsEntry("unlisted_changes", 0);
        List<Map<String, Object>> tables = changes(postgres);
        assertThat(tables)
                .extracting(t -> t.get("name"))
                .containsExactly("public.audit_log", "public.order_lines", "public.users");
        assertThat(counts(tables.get(0))).isEqualTo(List.of("no_primary_key", 1, 0, 1, 3, 3));
        assertThat(tables.get(0)).containsEntry("matched_by", null);
        assertThat((String) tables.get(0).get("note")).contains("no primary key");
        assertThat(counts(tables.get(1))).isEqualTo(List.of("changed", 1, 1, 1, 3, 3));
        assertThat(tables.get(1)).containsEntry("matched_by", "(order_id, line)");
        assertThat(counts(tables.get(2))).isEqualTo(List.of("changed", 2, 1, 1, 5, 6));
        assertThat(tables.get(2)).containsEntry("matched_by", "id");

        Map<String, Object> users = samples(tables.get(2));
        assertThat((List<Map<String, Object>>) users.get("inserted"))
                .extracting(s -> s.get("key"))
                .containsExactly("6", "7");
        assertThat((List<Map<String, Object>>) users.get("inserted"))
                .first()
                .satisfies(s -> assertThat((String) s.get("after")).contains("u6@example.com"))
                .satisfies(s -> assertThat(s).doesNotContainKey("before"));
        Map<String, Object> updated = ((List<Map<String, Object>>) users.get("updated")).get(0);
        assertThat(updated).containsEntry("key", "2");
        assertThat((String) updated.get("before")).contains("u2@example.com");
        assertThat((String) updated.get("after")).contains("changed@example.com");
        Map<String, Object> deleted = ((List<Map<String, Object>>) users.get("deleted")).get(0);
        assertThat(deleted).containsEntry("key", "5").doesNotContainKey("after");
        assertThat((String) deleted.get("before")).contains("u5@example.com");
        assertThat((List<Map<String, Object>>) samples(tables.get(1)).get("inserted"))
                .extracting(s -> s.get("key"))
                .containsExactly("[3, 1]");
        assertThat((List<Map<String, Object>>) samples(tables.get(0)).get("deleted"))
                .extracting(s -> (String) s.get("before"))
                .singleElement()
                .satisfies(row -> assertThat(row).contains("boot"));

        Map<String, Object> redis = services.get(1);
        List<Map<String, Object>> keyspaces = changes(redis);
        assertThat(keyspaces).extracting(k -> k.get("name")).containsExactly("db0");
        assertThat(counts(keyspaces.get(0))).isEqualTo(List.of("changed", 1, 2, 1, 4, 4));
        Map<String, Object> keys = samples(keyspaces.get(0));
        assertThat((List<Map<String, Object>>) keys.get("inserted"))
                .extracting(s -> s.get("key"))
                .containsExactly("c");
        assertThat((List<Map<String, Object>>) keys.get("updated"))
                .extracting(s -> s.get("key"), s -> s.get("after"))
                .containsExactly(tuple("a", "string"), tuple("h", "hash"));
        assertThat((List<Map<String, Object>>) keys.get("deleted"))
                .extracting(s -> s.get("key"))
                .containsExactly("b");

        Map<String, Object> mongo = services.get(2);
        assertThat(mongo).containsEntry("unchanged", 1);
        List<Map<String, Object>> collections = changes(mongo);
        assertThat(collections).extracting(c -> c.get("name")).containsExactly("orders");
        assertThat(counts(collections.get(0))).isEqualTo(List.of("changed", 1, 1, 1, 3, 3));
        Map<String, Object> docs = samples(collections.get(0));
        assertThat((List<Map<String, Object>>) docs.get("inserted"))
                .extracting(s -> s.get("key"))
                .containsExactly("4");
        Map<String, Object> paid = ((List<Map<String, Object>>) docs.get("updated")).get(0);
        assertThat(paid).containsEntry("key", "2");
        assertThat((String) paid.get("before")).contains("new");
        assertThat((String) paid.get("after")).contains("paid");
        assertThat((List<Map<String, Object>>) docs.get("deleted"))
                .extracting(s -> s.get("key"))
                .containsExactly("3");

        // read-only: a second diff is the same; no secret in the answer
        assertThat(diffVerb("dev-1", "before")).isEqualTo(diff);
        String body =
                api.verb("dev-1", "diff_data", "{\"checkpoint\":\"before\"}").body();
        for (String secret : List.of(
                env.get("ROBOCO_TEST_DB_PASSWORD"),
                env.get("ROBOCO_TEST_REDIS_PASSWORD"),
                env.get("ROBOCO_TEST_MONGO_PASSWORD"))) {
            assertThat(body).doesNotContain(secret);
        }

        // the admin route answers the same diff for the sandbox record
        ApiClient.Reply route = api.admin("GET", "/api/sandboxes/" + sandboxId + "/checkpoints/before/diff", null);
        assertThat(route.status()).as(route.body()).isEqualTo(200);
        assertThat(route.json()).containsEntry("sandbox", sandboxId).containsEntry("services", diff.get("services"));

        // the MCP tool, called by the official TypeScript SDK client
        ApiClient.Reply minted = api.orchestrator("POST", "/api/agents/dev-1/token", null);
        assertThat(minted.status()).as("%s", minted).isEqualTo(200);
        try (TypeScriptMcpClient client =
                TypeScriptMcpClient.http("http://127.0.0.1:" + server.server.port() + "/mcp", (String)
                        minted.json().get("token"))) {
            assertThat(client.connect().ok()).isTrue();
            assertThat(client.listTools()).extracting(t -> t.get("name")).contains("diff_data");
            TypeScriptMcpClient.Answer answer = client.call("diff_data", Map.of("checkpoint", "before"));
            assertThat(answer.isError()).as("%s", answer.json()).isFalse();
            assertThat(((Map<String, Object>) answer.structured().get("evidence")).get("services"))
                    .isEqualTo(diff.get("services"));
            assertThat(answer.text()).contains("public.users +2 ~1 -1", "db0 +1 ~2 -1", "orders +1 ~1 -1");
        }
    }

    /**
     * A sample shows no more of a row than inspection would: a column matching the denied-column patterns
     * ({@code *password*}, {@code *api_key*}, {@code card_number}, ...) is {@code <redacted>}, before and after, and so is
     * a key made of one.
     */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aSampleRedactsTheColumnsInspectionHides() {
        Map<String, String> env = working("dev-3");
        psql(
                env,
                "CREATE TABLE accounts (id int PRIMARY KEY, name text, password_hash text, api_key text);"
                        + " INSERT INTO accounts VALUES (1, 'ada', 'hash-one-original', 'key-one-original');"
                        + " CREATE TABLE sessions (token text PRIMARY KEY, who text);"
                        + " INSERT INTO sessions VALUES ('tok-original', 'ada')");
        ok("dev-3", "checkpoint_sandbox", "{\"name\":\"before\"}");
        psql(
                env,
                "UPDATE accounts SET password_hash = 'hash-one-changed', name = 'ada l.' WHERE id = 1;"
                        + " INSERT INTO accounts VALUES (2, 'bob', 'hash-two', 'key-two');"
                        + " UPDATE sessions SET who = 'bob' WHERE token = 'tok-original'");

        Map<String, Object> diff = diffVerb("dev-3", "before");
        String text = diff.toString();
        assertThat(text)
                .as("the changed rows are sampled, names included")
                .contains("ada l.", "bob", "<redacted>")
                .doesNotContain(
                        "hash-one-original",
                        "hash-one-changed",
                        "key-one-original",
                        "hash-two",
                        "key-two",
                        "tok-original");
        List<Map<String, Object>> services = (List<Map<String, Object>>) diff.get("services");
        Map<String, Object> accounts = changes(services.get(0)).stream()
                .filter(p -> "public.accounts".equals(p.get("name")))
                .findFirst()
                .orElseThrow();
        assertThat(counts(accounts)).containsExactly("changed", 1, 1, 0, 1, 2);
    }

    @Test
    void anUnknownCheckpointIsRefusedNamingTheOnesThereAre() {
        working("dev-2");
        ok("dev-2", "checkpoint_sandbox", "{\"name\":\"kept\"}");
        ApiClient.Reply reply = api.verb("dev-2", "diff_data", "{\"checkpoint\":\"nope\"}");
        assertThat(reply.json()).as(reply.body()).containsEntry("ok", false).containsEntry("error", "refused");
        assertThat((String) reply.json().get("reason")).contains("no checkpoint 'nope'", "kept");
        ApiClient.Reply wrongKey = api.verb("dev-2", "diff_data", "{\"name\":\"kept\"}");
        assertThat(wrongKey.status()).as(wrongKey.body()).isEqualTo(400);
        assertThat(wrongKey.body()).contains("checkpoint");
    }

    private static Map<String, Object> diffVerb(String slug, String checkpoint) {
        return ok(slug, "diff_data", "{\"checkpoint\":\"" + checkpoint + "\"}");
    }

    private static List<Map<String, Object>> changes(Map<String, Object> service) {
        return (List<Map<String, Object>>) service.get("changes");
    }

    private static Map<String, Object> samples(Map<String, Object> part) {
        return (Map<String, Object>) part.get("samples");
    }

    /** status, inserted, updated, deleted, before, after. */
    private static List<Object> counts(Map<String, Object> part) {
        return List.of(
                part.get("status"),
                part.get("inserted"),
                part.get("updated"),
                part.get("deleted"),
                part.get("before"),
                part.get("after"));
    }

    // --- the agent's side --------------------------------------------------------------------

    private static Map<String, String> working(String slug) {
        api.working(slug, "developer", "multi", "[\"postgres\",\"redis\",\"mongo\"]");
        return request(slug);
    }

    private static Map<String, String> request(String slug) {
        ApiClient.Reply reply = api.verb(slug, "request_sandbox", "{}");
        assertThat(reply.json()).as(reply.toString()).containsEntry("ok", true);
        sandboxId = (String) ((Map<String, Object>) reply.json().get("evidence")).get("sandbox_id");
        Map<String, String> env = new HashMap<>();
        for (Map<String, Object> s :
                (List<Map<String, Object>>) ((Map<String, Object>) reply.json().get("evidence")).get("sandboxes")) {
            env.putAll((Map<String, String>) s.get("env"));
        }
        return env;
    }

    private static Map<String, Object> ok(String slug, String verb, String body) {
        ApiClient.Reply reply = api.verb(slug, verb, body);
        assertThat(reply.json()).as(reply.body()).containsEntry("ok", true);
        return (Map<String, Object>) reply.json().get("evidence");
    }
}
