package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.testkit.ApiClient;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The edge over the fakes: body limits on every road, identity bound to the engagement, owners that cannot collide. */
@SuppressWarnings("unchecked")
class EdgeLimitsTest {
    @TempDir
    Path dir;

    private TestServer t;

    @AfterEach
    void close() {
        if (t != null) {
            t.close();
        }
    }

    @Test
    void bodiesOverTheLimitAre413DeclaredOrChunkedAndTheConnectionAnswers() throws Exception {
        t = new TestServer(dir, true);
        byte[] big = json(3 << 20);
        HttpResponse<String> declared =
                send("PUT", "/api/projects/shop", ApiClient.ADMIN_TOKEN, "application/json", big, false);
        assertThat(declared.statusCode()).isEqualTo(413);
        assertThat(declared.body()).contains("ROBOCO_SANDBOX_MAX_BODY");
        HttpResponse<String> chunked =
                send("PUT", "/api/projects/shop", ApiClient.ADMIN_TOKEN, "application/json", big, true);
        assertThat(chunked.statusCode()).isEqualTo(413);
        assertThat(chunked.body()).contains("too_large");
        assertThat(t.api.admin("GET", "/api/projects/shop", null).status())
                .as("nothing was written")
                .isEqualTo(404);

        byte[] form = ("token=" + "x".repeat(300 << 10)).getBytes(StandardCharsets.UTF_8);
        assertThat(send("POST", "/login", null, "application/x-www-form-urlencoded", form, false)
                        .statusCode())
                .isEqualTo(413);
        HttpResponse<String> chunkedForm =
                send("POST", "/login", null, "application/x-www-form-urlencoded", form, true);
        assertThat(chunkedForm.statusCode()).isEqualTo(413);
        assertThat(chunkedForm.body()).contains("ROBOCO_SANDBOX_MAX_FORM_BODY");

        assertThat(send("POST", "/mcp", ApiClient.ADMIN_TOKEN, "application/json", big, true)
                        .statusCode())
                .isEqualTo(413);
        assertThat(t.api.send("GET", "/healthz", null, null).status()).isEqualTo(200);
    }

    @Test
    void respawningOrDeletingAnAgentEndsItsTokenAndItsNamedSandboxes() throws Exception {
        t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        String token = mint("dev-1");
        assertThat(initialize(token)).isEqualTo(200);
        ApiClient.Reply named =
                t.api.admin("POST", "/api/sandboxes", "{\"owner\":\"dev-1\",\"project\":\"shop\",\"name\":\"side\"}");
        assertThat(named.status()).as(named.toString()).isEqualTo(200);

        t.working("dev-1", "developer");
        assertThat(initialize(token)).as("the token of the earlier engagement").isEqualTo(401);
        assertThat(live("dev-1"))
                .as("the earlier engagement's named sandbox ended")
                .isEmpty();

        String second = mint("dev-1");
        assertThat(t.api.admin("POST", "/api/sandboxes", "{\"owner\":\"dev-1\",\"project\":\"shop\",\"name\":\"side\"}")
                        .status())
                .isEqualTo(200);
        assertThat(t.api.orchestrator("DELETE", "/api/agents/dev-1", null).json())
                .containsEntry("token_revoked", true);
        assertThat(initialize(second)).isEqualTo(401);
        assertThat(live("dev-1")).isEmpty();
    }

    @Test
    void aCiJobIsAJobOwnerAndABareOwnerMustBeASpawnedAgent() {
        t = new TestServer(dir, true);
        t.api.admin("PUT", "/api/projects/shop", "{\"name\":\"shop\",\"sandbox_services\":[\"postgres\"]}");
        ApiClient.Reply bare = t.api.admin("POST", "/api/sandboxes", "{\"owner\":\"ci-9\",\"project\":\"shop\"}");
        assertThat(bare.status()).isEqualTo(400);
        assertThat(bare.body()).contains("job:ci-9");
        ApiClient.Reply job = t.api.admin("POST", "/api/sandboxes", "{\"owner\":\"job:ci-9\",\"project\":\"shop\"}");
        assertThat(job.status()).as(job.toString()).isEqualTo(200);
        // An agent spawned as ci-9 later inherits nothing of job:ci-9's.
        t.working("ci-9", "developer");
        assertThat(live("ci-9")).isEmpty();
        assertThat(live("job:ci-9")).hasSize(1);
    }

    private List<Object> live(String owner) {
        return (List<Object>) t.api.admin("GET", "/api/sandboxes?owner=" + owner + "&state=live", null)
                .json()
                .get("sandboxes");
    }

    private String mint(String slug) {
        ApiClient.Reply r = t.api.orchestrator("POST", "/api/agents/" + slug + "/token", null);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json()).containsKey("expires");
        return (String) r.json().get("token");
    }

    private int initialize(String token) throws Exception {
        byte[] body =
                ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}")
                        .getBytes(StandardCharsets.UTF_8);
        return send("POST", "/mcp", token, "application/json", body, false).statusCode();
    }

    private static byte[] json(int size) {
        StringBuilder b = new StringBuilder(size + 32).append("{\"name\":\"");
        b.append("a".repeat(size));
        return b.append("\"}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private HttpResponse<String> send(
            String method, String path, String token, String type, byte[] body, boolean chunked) throws Exception {
        HttpRequest.BodyPublisher publisher = chunked
                ? HttpRequest.BodyPublishers.ofInputStream(() -> (InputStream) new ByteArrayInputStream(body))
                : HttpRequest.BodyPublishers.ofByteArray(body);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + t.server.port() + path))
                .header("Content-Type", type)
                .header("Accept", "application/json, text/event-stream")
                .method(method, publisher);
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .build()
                .send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
