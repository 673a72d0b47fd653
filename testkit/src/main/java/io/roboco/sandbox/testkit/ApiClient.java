package io.roboco.sandbox.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one HTTP client of the tests, for a server on 127.0.0.1 (in this JVM or a child process): the
 * orchestrator's and the admin's routes with their tokens, the verbs, and {@link Reply} whose
 * {@code toString} redacts passwords. Its own {@code toString} never shows a token.
 */
public final class ApiClient {
    /** The orchestrator token the test servers are configured with. */
    public static final String API_TOKEN = "it-api-token-0123456789abcdef";
    /** The admin token the test servers are configured with. */
    public static final String ADMIN_TOKEN = "it-admin-token-0123456789abcdef";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final int port;
    private final String apiToken;
    private final String adminToken;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    /** A client using {@link #API_TOKEN} and {@link #ADMIN_TOKEN}. */
    public ApiClient(int port) {
        this(port, API_TOKEN, ADMIN_TOKEN);
    }

    public ApiClient(int port, String apiToken, String adminToken) {
        this.port = port;
        this.apiToken = apiToken;
        this.adminToken = adminToken;
    }

    public int port() {
        return port;
    }

    /** One HTTP answer; {@link #json()} parses the body. */
    public record Reply(int status, String body) {
        @SuppressWarnings("unchecked")
        public Map<String, Object> json() {
            try {
                return MAPPER.readValue(body, Map.class);
            } catch (Exception e) {
                throw new AssertionError("not JSON (HTTP " + status + "): " + Redact.passwords(body), e);
            }
        }

        /** HTTP 200 with {@code "ok": true}. */
        public boolean ok() {
            return status == 200 && Boolean.TRUE.equals(json().get("ok"));
        }

        /** The granted sandboxes' env dicts by service; empty unless ok. */
        @SuppressWarnings("unchecked")
        public Map<String, Map<String, String>> grants() {
            if (!ok()) {
                return Map.of();
            }
            List<Map<String, Object>> sandboxes =
                    (List<Map<String, Object>>) ((Map<String, Object>) json().get("evidence")).get("sandboxes");
            Map<String, Map<String, String>> out = new TreeMap<>();
            sandboxes.forEach(s -> out.put((String) s.get("service"), (Map<String, String>) s.get("env")));
            return out;
        }

        @Override
        public String toString() {
            return "HTTP " + status + " " + Redact.passwords(body);
        }
    }

    /** Any request; {@code token} null sends no Authorization header, {@code body} null sends none. */
    public Reply send(String method, String path, String token, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(150))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(method + " " + path + " interrupted", e);
        } catch (Exception e) {
            throw new AssertionError(method + " " + path + " failed: " + e, e);
        }
    }

    public Reply admin(String method, String path, String body) {
        return send(method, path, adminToken, body);
    }

    public Reply orchestrator(String method, String path, String body) {
        return send(method, path, apiToken, body);
    }

    public Reply verb(String slug, String verb, String body) {
        return orchestrator("POST", "/api/agents/" + slug + "/verbs/" + verb, body);
    }

    public Reply requestSandbox(String slug) {
        return verb(slug, "request_sandbox", "{}");
    }

    /**
     * request_sandbox, asked again (up to {@code attempts} times, 1 s apart) while the answer is a
     * retryable invalid_state, as the contract tells an orchestrator to (a loaded machine can miss a
     * readiness timeout). Any other answer is returned as is.
     */
    public Reply requestSandboxRetrying(String slug, int attempts) throws InterruptedException {
        Reply r = requestSandbox(slug);
        for (int i = 1;
                i < attempts
                        && !r.ok()
                        && "invalid_state".equals(r.json().get("error"))
                        && Boolean.TRUE.equals(r.json().get("retryable"));
                i++) {
            System.out.println("retrying request_sandbox for " + slug + " after: " + r);
            Thread.sleep(1000);
            r = requestSandbox(slug);
        }
        return r;
    }

    /** Opts {@code project} into {@code servicesJson} (e.g. {@code ["postgres","redis"]}), spawns a developer, gives it work. */
    public void working(String slug, String project, String servicesJson) {
        working(slug, "developer", project, servicesJson);
    }

    /** Opts {@code project} into {@code servicesJson}, spawns the agent in {@code role}, gives it a task in the project. */
    public void working(String slug, String role, String project, String servicesJson) {
        expect200(admin(
                "PUT",
                "/api/projects/" + project,
                "{\"name\":\"" + project + "\",\"sandbox_services\":" + servicesJson + "}"));
        expect200(orchestrator(
                "POST",
                "/api/agents/" + slug + "/spawn",
                "{\"role\":\"" + role + "\",\"project\":\"" + project + "\"}"));
        Reply r = verb(slug, "give_me_work", "{\"project\":\"" + project + "\",\"task\":\"T-" + slug + "\"}");
        if (!r.ok()) {
            throw new AssertionError("give_me_work for " + slug + ": " + r);
        }
    }

    /** Where it sends, never the tokens. */
    @Override
    public String toString() {
        return "ApiClient[http://127.0.0.1:" + port + ", api token " + (apiToken == null ? "none" : "<redacted>")
                + ", admin token " + (adminToken == null ? "none" : "<redacted>") + "]";
    }

    private static void expect200(Reply r) {
        if (r.status() != 200) {
            throw new AssertionError(r.toString());
        }
    }
}
