package io.roboco.sandbox.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.roboco.sandbox.it.Gate;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.provision.Psql;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Progress of slow calls against the real server and Docker. Over MCP, through the official TypeScript SDK client (it
 * asks for them: {@code _meta.progressToken}): the agent saves a template of more than 50 MB and starts a new sandbox
 * from it; the restore is parked halfway (at the runtime seam, once it has fed half the dump to the container) and a
 * progress notification saying how far the restore has got arrives while it is parked, before the call answers. Over
 * HTTP, a create from the same template with {@code Accept: application/x-ndjson}: a progress line saying the same
 * arrives while its restore is parked, then the last line with the sandbox.
 */
@SuppressWarnings("unchecked")
class ProgressIT {
    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "5m", "120s", null));

    private static final Duration STEP = Duration.ofSeconds(180);
    private static final long FIFTY_MB = 50_000_000L;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ExecutorService THREADS = Executors.newCachedThreadPool();

    @AfterAll
    static void stopThreads() {
        THREADS.shutdownNow();
    }

    private static String env(TypeScriptMcpClient.Answer granted, String key) {
        Map<String, Object> s = granted.structured();
        List<Map<String, Object>> services = s.get("sandbox") instanceof Map<?, ?> named
                ? (List<Map<String, Object>>) ((Map<String, Object>) named).get("services")
                : (List<Map<String, Object>>) ((Map<String, Object>) s.get("evidence")).get("sandboxes");
        return ((Map<String, String>) services.get(0).get("env")).get(key);
    }

    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void progressArrivesWhileATemplateOfFiftyMegabytesIsRestoredOverMcpAndHttp() throws Exception {
        ApiClient api = SERVER.api();
        api.working("prog-dev", "prog", "[\"postgres\"]");
        String token = (String) api.orchestrator("POST", "/api/agents/prog-dev/token", null)
                .json()
                .get("token");
        try (TypeScriptMcpClient client =
                TypeScriptMcpClient.http("http://127.0.0.1:" + SERVER.server().port() + "/mcp", token)) {
            assertThat(client.connect().ok()).isTrue();
            TypeScriptMcpClient.Answer granted = client.call("request_sandbox", Map.of());
            assertThat(granted.isError())
                    .as("%s", granted.structured().get("reason"))
                    .isFalse();
            String url = env(granted, "ROBOCO_TEST_DB_URL");
            // 90,000 rows of 640 characters: a dump of about 58 MB.
            Psql.run(
                    url,
                    "CREATE TABLE big AS SELECT g AS id, repeat(md5(g::text), 20) AS pad FROM generate_series(1, 90000) g;");

            TypeScriptMcpClient.Answer saved = client.callWithProgress("save_template", Map.of("name", "big"));
            assertThat(saved.isError())
                    .as("%s", saved.structured().get("reason"))
                    .isFalse();
            long size =
                    ((Number) ((Map<String, Object>) saved.structured().get("evidence")).get("size_bytes")).longValue();
            assertThat(size).as("the template's dump in bytes").isGreaterThanOrEqualTo(FIFTY_MB);

            Gate half = SERVER.server().runtime.parkNextStdinAfter("restore of template big", size / 2);
            Future<TypeScriptMcpClient.Answer> restored = THREADS.submit(
                    () -> client.callWithProgress("request_sandbox", Map.of("name", "restored", "template", "big")));
            half.awaitParked(STEP);
            Map<String, Object> during = client.awaitEvent(
                    e -> String.valueOf(((Map<String, Object>) e.get("progress")).get("message"))
                            .contains("restoring template 'big'"),
                    STEP);
            half.open();
            TypeScriptMcpClient.Answer answer = restored.get(STEP.toSeconds(), TimeUnit.SECONDS);
            assertThat(half.overstayed()).as("the gate was opened in time").isFalse();
            assertThat(answer.isError())
                    .as("%s", answer.structured().get("reason"))
                    .isFalse();

            String message = (String) ((Map<String, Object>) during.get("progress")).get("message");
            System.out.println("progress during the restore: " + message);
            assertThat(message)
                    .as("it says how far the restore has got")
                    .containsPattern("restoring template 'big': \\d+\\.\\d of \\d+\\.\\d MB")
                    // Not its first words: the template's physical copy is made after save_template answers
                    // (outside the owner's lock), and while it runs the agent's progress lines lead with it
                    // ("save_template running for 1 s; saving template 'big': ...; restoring template ...").
                    .containsPattern("running for \\d+ s");
            assertThat((List<Object>) answer.json().get("progress"))
                    .as("the client received the notifications before the result")
                    .isNotEmpty();
            assertThat(Psql.run(env(answer, "ROBOCO_TEST_DB_URL"), "SELECT count(*) FROM big;"))
                    .as("the restored sandbox holds the template's rows")
                    .isEqualTo("90000");
        }

        // Over HTTP: the same restore, as a streamed create.
        Gate again = SERVER.server().runtime.parkNextStdinAfter("HTTP restore of template big", FIFTY_MB / 4);
        HttpRequest create = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + SERVER.server().port() + "/api/sandboxes"))
                .header("Authorization", "Bearer " + ApiClient.ADMIN_TOKEN)
                .header("Accept", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofString("{\"owner\":\"job:prog-ci\",\"project\":\"prog\","
                        + "\"services\":[\"postgres\"],\"template\":\"big\",\"name\":\"from-http\"}"))
                .build();
        Future<HttpResponse<Stream<String>>> streamed =
                HttpClient.newHttpClient().sendAsync(create, HttpResponse.BodyHandlers.ofLines());
        again.awaitParked(STEP);
        HttpResponse<Stream<String>> response = streamed.get(STEP.toSeconds(), TimeUnit.SECONDS);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/x-ndjson"));
        Iterator<String> lines = response.body().iterator();
        String during = null;
        while (during == null && lines.hasNext()) {
            Map<String, Object> line = JSON.readValue(lines.next(), Map.class);
            assertThat(line).as("progress lines come first").containsKeys("progress", "message");
            if (String.valueOf(line.get("message")).contains("restoring template 'big'")) {
                during = (String) line.get("message");
            }
        }
        again.open();
        assertThat(during)
                .as("a progress line while the restore is parked")
                .containsPattern("restoring template 'big': \\d+\\.\\d of \\d+\\.\\d MB");
        Map<String, Object> last = null;
        while (lines.hasNext()) {
            last = JSON.readValue(lines.next(), Map.class);
        }
        assertThat(last)
                .as("the last line is the answer")
                .containsEntry("status", 200)
                .containsEntry("replayed", false);
        assertThat((Map<String, Object>) last.get("body")).containsEntry("ok", true);
        assertThat(again.overstayed()).isFalse();
    }
}
