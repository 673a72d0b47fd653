package io.roboco.sandbox.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The standalone server's HTTP API as the orchestrator and the admin use it, over loopback. */
final class Api {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final int port;
    private final String apiToken;
    private final String adminToken;

    Api(int port, String apiToken, String adminToken) {
        this.port = port;
        this.apiToken = apiToken;
        this.adminToken = adminToken;
    }

    void project(String id, List<String> services) throws IOException, InterruptedException {
        send(
                "PUT",
                "/api/projects/" + id,
                adminToken,
                JSON.writeValueAsString(Map.of("name", id, "sandbox_services", services)));
    }

    /** A Postgres project whose sandboxes start with {@code sql} ({@code sandbox_seed {"postgres": {"sql": …}}}). */
    void seededProject(String id, String sql) throws IOException, InterruptedException {
        send(
                "PUT",
                "/api/projects/" + id,
                adminToken,
                JSON.writeValueAsString(Map.of(
                        "name",
                        id,
                        "sandbox_services",
                        List.of("postgres"),
                        "sandbox_seed",
                        Map.of("postgres", Map.of("sql", sql)))));
    }

    /** Spawn as developer and bind to a task of {@code project}: what precedes request_sandbox. Not timed. */
    void working(String agent, String project) throws IOException, InterruptedException {
        send(
                "POST",
                "/api/agents/" + agent + "/spawn",
                apiToken,
                "{\"role\":\"developer\",\"project\":\"" + project + "\"}");
        Map<String, Object> work = send(
                "POST",
                "/api/agents/" + agent + "/verbs/give_me_work",
                apiToken,
                "{\"project\":\"" + project + "\",\"task\":\"BENCH-1\"}");
        if (!Boolean.TRUE.equals(work.get("ok"))) {
            throw new IllegalStateException("give_me_work for " + agent + " refused: " + work);
        }
    }

    /** The verb; returns the envelope. Throws unless ok. */
    Map<String, Object> requestSandbox(String agent) throws IOException, InterruptedException {
        Map<String, Object> envelope = send("POST", "/api/agents/" + agent + "/verbs/request_sandbox", apiToken, "{}");
        if (!Boolean.TRUE.equals(envelope.get("ok"))) {
            throw new IllegalStateException("request_sandbox for " + agent + " not ok: " + envelope.get("error") + " "
                    + envelope.get("reason"));
        }
        return envelope;
    }

    /** The agent's MCP token (orchestrator route); DELETE /api/agents/{agent} revokes it. */
    String mintToken(String agent) throws IOException, InterruptedException {
        return (String)
                send("POST", "/api/agents/" + agent + "/token", apiToken, null).get("token");
    }

    /** {@code GET /healthz} (no token needed): the network floor of a request on this client. */
    Map<String, Object> healthz() throws IOException, InterruptedException {
        return send("GET", "/healthz", null, null);
    }

    int port() {
        return port;
    }

    void release(String agent) throws IOException, InterruptedException {
        send("POST", "/api/agents/" + agent + "/verbs/release_sandbox", apiToken, "{}");
    }

    void forget(String agent) throws IOException, InterruptedException {
        send("DELETE", "/api/agents/" + agent, apiToken, null);
    }

    /** An admin route with a JSON body (null: none); throws unless HTTP 200. */
    Map<String, Object> admin(String method, String path, Object body) throws IOException, InterruptedException {
        return send(method, path, adminToken, body == null ? null : JSON.writeValueAsString(body));
    }

    /** An agent verb with a JSON body; returns the envelope, throws unless ok. */
    Map<String, Object> verb(String agent, String verb, Object body) throws IOException, InterruptedException {
        Map<String, Object> envelope =
                send("POST", "/api/agents/" + agent + "/verbs/" + verb, apiToken, JSON.writeValueAsString(body));
        if (!Boolean.TRUE.equals(envelope.get("ok"))) {
            throw new IllegalStateException(
                    verb + " for " + agent + " not ok: " + envelope.get("error") + " " + envelope.get("reason"));
        }
        return envelope;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> send(String method, String path, String token, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofMinutes(10))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(method + " " + path + " answered HTTP " + r.statusCode() + ": " + r.body());
        }
        return JSON.readValue(r.body(), Map.class);
    }
}
