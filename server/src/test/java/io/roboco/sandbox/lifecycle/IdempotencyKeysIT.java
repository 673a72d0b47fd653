package io.roboco.sandbox.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.roboco.sandbox.idempotency.IdempotentCalls;
import io.roboco.sandbox.it.Gate;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.mcp.TypeScriptMcpClient;
import io.roboco.sandbox.provision.Psql;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import io.roboco.sandbox.testkit.LockWaiters;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Idempotency keys against the real server and Docker, over HTTP ({@code Idempotency-Key}) and over MCP (the official
 * TypeScript SDK client, argument {@code idempotency_key}): a retried create answers the first answer, the same sandbox
 * id and credentials, and makes nothing; the same key with another body is a 409 / a tool error; another caller's key
 * of the same text is its own; a retry arriving while the first create is still inside provisioning (parked at the
 * container start) waits for it, on the key's lock, and gets its answer; a retried checkpoint does not copy again.
 */
@SuppressWarnings("unchecked")
class IdempotencyKeysIT {
    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "60s", null));

    private static final Duration STEP = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ExecutorService THREADS = Executors.newCachedThreadPool();

    @AfterAll
    static void stopThreads() {
        THREADS.shutdownNow();
    }

    /** An answer; its toString never shows a body (a create's carries passwords). */
    record Keyed(int status, Map<String, Object> json, boolean replayed) {
        Map<String, Object> sandbox() {
            return (Map<String, Object>) json.get("sandbox");
        }

        @Override
        public String toString() {
            return "Keyed[status=" + status + ", replayed=" + replayed + ", error=" + json.get("error") + ", message="
                    + json.get("message") + "]";
        }
    }

    private static Keyed post(String path, String token, String key, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + SERVER.server().port() + path))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .timeout(STEP)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Keyed(
                r.statusCode(),
                JSON.readValue(r.body(), Map.class),
                r.headers().firstValue("Idempotent-Replayed").isPresent());
    }

    private static boolean replayed(TypeScriptMcpClient.Answer answer) {
        return answer.result().get("_meta") instanceof Map<?, ?> meta
                && Boolean.TRUE.equals(meta.get("io.roboco/idempotent_replayed"));
    }

    private static List<Object> live(String owner) {
        return (List<Object>) SERVER.api()
                .admin("GET", "/api/sandboxes?owner=" + owner + "&state=live", null)
                .json()
                .get("sandboxes");
    }

    private static String create(String owner) {
        return "{\"owner\":\"" + owner + "\",\"project\":\"idem\",\"services\":[\"postgres\"]}";
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void overHttpARetriedCreateAnswersTheFirstSandboxAndTheSameKeyWithAnotherBodyIs409() throws Exception {
        ApiClient api = SERVER.api();
        api.working("idem-dev", "idem", "[\"postgres\"]");
        String key = UUID.randomUUID().toString();
        Keyed first = post("/api/sandboxes", ApiClient.ADMIN_TOKEN, key, create("job:idem-ci"));
        assertThat(first.status()).as("%s", first).isEqualTo(200);
        assertThat(first.json()).containsEntry("ok", true);
        assertThat(first.replayed()).isFalse();
        Keyed retry = post("/api/sandboxes", ApiClient.ADMIN_TOKEN, key, create("job:idem-ci"));
        assertThat(retry.status()).isEqualTo(200);
        assertThat(retry.replayed()).as("Idempotent-Replayed: true").isTrue();
        assertThat(retry.sandbox()).as("the same sandbox id and credentials").isEqualTo(first.sandbox());
        assertThat(live("job:idem-ci")).as("one sandbox made").hasSize(1);

        Keyed other = post(
                "/api/sandboxes",
                ApiClient.ADMIN_TOKEN,
                key,
                "{\"owner\":\"job:idem-ci\",\"project\":\"idem\",\"services\":[\"postgres\"],\"name\":\"other\"}");
        assertThat(other.status()).isEqualTo(409);
        assertThat(other.json()).containsEntry("error", "idempotency_conflict");
        assertThat((String) other.json().get("message"))
                .contains("Idempotency key '" + key + "' was first used for a POST /api/sandboxes with other arguments")
                .contains("a new request needs a new key");
        assertThat(live("job:idem-ci")).as("the conflict made nothing").hasSize(1);

        // Keys are the caller's: a client token's same key is its own.
        String client = (String)
                api.admin("POST", "/api/clients/job:idem-ci/token", null).json().get("token");
        Keyed clients = post("/api/sandboxes", client, key, create("job:idem-ci"));
        assertThat(clients.status()).as("%s", clients).isEqualTo(200);
        assertThat(clients.replayed()).isFalse();
        assertThat(clients.sandbox().get("id")).isNotEqualTo(first.sandbox().get("id"));
        assertThat(post("/api/sandboxes", client, key, create("job:idem-ci")).sandbox())
                .isEqualTo(clients.sandbox());
        assertThat(live("job:idem-ci")).hasSize(2);

        Keyed malformed = post("/api/sandboxes", ApiClient.ADMIN_TOKEN, "has space", create("job:idem-ci"));
        assertThat(malformed.status()).isEqualTo(400);
        assertThat((String) malformed.json().get("message")).contains("'Idempotency-Key' must be an idempotency key");

        // A checkpoint with a key: the retry is the first answer; another name under the key is a conflict.
        String id = (String) first.sandbox().get("id");
        Keyed taken = post("/api/sandboxes/" + id + "/checkpoints", ApiClient.ADMIN_TOKEN, "cp-1", "{\"name\":\"c1\"}");
        assertThat(taken.status()).as("%s", taken).isEqualTo(200);
        Keyed again = post("/api/sandboxes/" + id + "/checkpoints", ApiClient.ADMIN_TOKEN, "cp-1", "{\"name\":\"c1\"}");
        assertThat(again.replayed()).isTrue();
        assertThat(again.json()).isEqualTo(taken.json());
        assertThat(post("/api/sandboxes/" + id + "/checkpoints", ApiClient.ADMIN_TOKEN, "cp-1", "{\"name\":\"c2\"}")
                        .status())
                .isEqualTo(409);
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void overHttpARetryWhileTheFirstCreateStillProvisionsWaitsForItInsteadOfMakingASecond() throws Exception {
        ApiClient api = SERVER.api();
        api.working("idem-dev", "idem", "[\"postgres\"]");
        String owner = "job:idem-race";
        String key = UUID.randomUUID().toString();
        Gate start = SERVER.server()
                .runtime
                .parkNextStart(owner + " create", r -> r.labels().containsValue(owner));
        Future<Keyed> first = THREADS.submit(() -> post("/api/sandboxes", ApiClient.ADMIN_TOKEN, key, create(owner)));
        start.awaitParked(STEP);
        List<Thread> before = LockWaiters.inside(IdempotentCalls.class.getName(), "awaitFirst");
        Future<Keyed> retry = THREADS.submit(() -> post("/api/sandboxes", ApiClient.ADMIN_TOKEN, key, create(owner)));
        LockWaiters.awaitNew(before, IdempotentCalls.class.getName(), "awaitFirst", STEP);
        assertThat(retry).as("the retry waits for the first").isNotDone();
        start.open();
        Keyed one = first.get(STEP.toSeconds(), TimeUnit.SECONDS);
        Keyed two = retry.get(STEP.toSeconds(), TimeUnit.SECONDS);
        assertThat(start.overstayed()).isFalse();
        assertThat(one.status()).as("%s", one).isEqualTo(200);
        assertThat(one.replayed()).isFalse();
        assertThat(two.replayed()).isTrue();
        assertThat(two.sandbox()).as("the same sandbox id and credentials").isEqualTo(one.sandbox());
        assertThat(live(owner)).as("one sandbox, not two").hasSize(1);
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void overMcpARetriedRequestAndCheckpointAnswerTheFirstResultAndTheRaceWaits() throws Exception {
        ApiClient api = SERVER.api();
        String agent = "idem-mcp";
        api.working(agent, "idem", "[\"postgres\"]");
        String token = (String) api.orchestrator("POST", "/api/agents/" + agent + "/token", null)
                .json()
                .get("token");
        String url = "http://127.0.0.1:" + SERVER.server().port() + "/mcp";
        try (TypeScriptMcpClient a = TypeScriptMcpClient.http(url, token);
                TypeScriptMcpClient b = TypeScriptMcpClient.http(url, token)) {
            assertThat(a.connect().ok()).isTrue();
            assertThat(b.connect().ok()).isTrue();

            // The race: the first create parks at its container start; the retry (another session) waits on the key.
            String key = UUID.randomUUID().toString();
            Map<String, Object> args = Map.of("name", "keyed", "idempotency_key", key);
            Gate start = SERVER.server()
                    .runtime
                    .parkNextStart(agent + " named create", r -> r.labels().containsValue(agent));
            Future<TypeScriptMcpClient.Answer> first = THREADS.submit(() -> a.call("request_sandbox", args));
            start.awaitParked(STEP);
            List<Thread> before = LockWaiters.inside(IdempotentCalls.class.getName(), "awaitFirst");
            Future<TypeScriptMcpClient.Answer> retry = THREADS.submit(() -> b.call("request_sandbox", args));
            LockWaiters.awaitNew(before, IdempotentCalls.class.getName(), "awaitFirst", STEP);
            start.open();
            TypeScriptMcpClient.Answer one = first.get(STEP.toSeconds(), TimeUnit.SECONDS);
            TypeScriptMcpClient.Answer two = retry.get(STEP.toSeconds(), TimeUnit.SECONDS);
            assertThat(one.isError()).as("%s", one.structured().get("reason")).isFalse();
            assertThat(two.structured())
                    .as("the same sandbox id and credentials")
                    .isEqualTo(one.structured());
            assertThat(replayed(two)).as("the retry is marked a replay").isTrue();
            assertThat(replayed(one)).isFalse();
            assertThat(live(agent)).as("one named sandbox").hasSize(1);

            TypeScriptMcpClient.Answer conflict =
                    a.call("request_sandbox", Map.of("name", "another", "idempotency_key", key));
            assertThat(conflict.isError()).isTrue();
            assertThat(conflict.structured()).containsEntry("error", "idempotency_conflict");
            assertThat(live(agent)).hasSize(1);

            // A checkpoint retried with its key does not copy again: the data changed since is not in it.
            Map<String, Object> sandbox = (Map<String, Object>) one.structured().get("sandbox");
            String id = (String) sandbox.get("id");
            String db = ((Map<String, String>) ((List<Map<String, Object>>) sandbox.get("services"))
                            .get(0)
                            .get("env"))
                    .get("ROBOCO_TEST_DB_URL");
            Psql.run(db, "CREATE TABLE t (v int); INSERT INTO t VALUES (1);");
            Map<String, Object> checkpoint = Map.of("name", "before", "sandbox", id, "idempotency_key", "cp-" + key);
            TypeScriptMcpClient.Answer taken = a.call("checkpoint_sandbox", checkpoint);
            assertThat(taken.isError()).as("%s", taken.structured()).isFalse();
            Psql.run(db, "UPDATE t SET v = 2;");
            TypeScriptMcpClient.Answer again = a.call("checkpoint_sandbox", checkpoint);
            assertThat(again.structured()).isEqualTo(taken.structured());
            assertThat(replayed(again)).isTrue();
            TypeScriptMcpClient.Answer rewound = a.call("rewind_sandbox", Map.of("name", "before", "sandbox", id));
            assertThat(rewound.isError()).as("%s", rewound.structured()).isFalse();
            assertThat(Psql.run(db, "SELECT v FROM t;"))
                    .as("the checkpoint holds the data of the first call, not of the retry")
                    .isEqualTo("1");
        }
    }
}
