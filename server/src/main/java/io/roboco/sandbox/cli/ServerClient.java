package io.roboco.sandbox.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The running server, as an operator command reaches it: its URL ({@code --url}, else {@code ROBOCO_SANDBOX_URL},
 * else {@code http://127.0.0.1:$ROBOCO_SANDBOX_PORT}) and the admin token ({@code ROBOCO_SANDBOX_ADMIN_TOKEN}, else
 * the state directory's {@code admin-token}). A picocli mixin: {@code --url} and {@code --json} on every command that
 * uses it. Never prints the token.
 */
final class ServerClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(
            names = "--url",
            paramLabel = "URL",
            description = "the server (default: ROBOCO_SANDBOX_URL, else http://127.0.0.1:$ROBOCO_SANDBOX_PORT)")
    String url;

    @Option(names = "--json", description = "print the server's JSON answer instead of a table")
    boolean json;

    Map<String, String> env = System.getenv();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    /** An answer: HTTP status and body. */
    record Reply(int status, String body) {
        @SuppressWarnings("unchecked")
        Map<String, Object> map() {
            try {
                return JSON.readValue(body, Map.class);
            } catch (IOException e) {
                throw new IllegalStateException("the server answered HTTP " + status + " with a body that is not JSON");
            }
        }

        boolean ok() {
            return status == 200;
        }

        /** The error's message for a non-200 answer. */
        String message() {
            try {
                Object m = map().get("message");
                return "HTTP " + status + ": " + (m == null ? body : m);
            } catch (RuntimeException e) {
                return "HTTP " + status;
            }
        }
    }

    String base() {
        if (url != null && !url.isBlank()) {
            return strip(url);
        }
        String fromEnv = env.get("ROBOCO_SANDBOX_URL");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return strip(fromEnv);
        }
        String port = env.getOrDefault("ROBOCO_SANDBOX_PORT", "7070");
        return "http://127.0.0.1:" + (port == null || port.isBlank() ? "7070" : port.trim());
    }

    /** True when a server answers /healthz at {@link #base()}. */
    boolean reachable() {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(base() + "/healthz"))
                            .timeout(Duration.ofSeconds(3))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    Reply send(String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path))
                .timeout(Duration.ofMinutes(3))
                .header("Authorization", "Bearer " + adminToken())
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Reply(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new IllegalStateException(
                    "no server answers at " + base() + " (" + e.getClass().getSimpleName()
                            + "); start one with ./scripts/roboco-sandbox serve, or point --url / ROBOCO_SANDBOX_URL at it");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }

    static String json(Object value) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(value);
        } catch (IOException e) {
            throw new IllegalStateException(e.getMessage());
        }
    }

    static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (IOException e) {
            throw new IllegalStateException(e.getMessage());
        }
    }

    private String adminToken() {
        String token = env.get("ROBOCO_SANDBOX_ADMIN_TOKEN");
        if (token != null && !token.isBlank()) {
            return token.trim();
        }
        String dir = env.get("ROBOCO_SANDBOX_STATE_DIR");
        Path stateDir = dir != null && !dir.isBlank()
                ? Path.of(dir)
                : Path.of(env.getOrDefault("HOME", System.getProperty("user.home")), ".roboco-sandbox");
        Path file = stateDir.resolve("admin-token");
        try {
            return Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "no admin token: set ROBOCO_SANDBOX_ADMIN_TOKEN, or ROBOCO_SANDBOX_STATE_DIR to the server's"
                            + " state directory (" + file + " is not readable)");
        }
    }

    private static String strip(String s) {
        String t = s.trim();
        return t.endsWith("/") ? t.substring(0, t.length() - 1) : t;
    }
}
