package io.roboco.sandbox.junit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server's lifecycle API as far as the extension uses it, on 127.0.0.1: {@code POST /api/sandboxes} answers a
 * sandbox with an env per asked service (or the scripted refusal), {@code DELETE /api/sandboxes/{id}} deletes it.
 * Records every request.
 */
final class FakeLifecycleApi implements AutoCloseable {
    static final String TOKEN = "rbxc_test-client-token";
    private static final ObjectMapper JSON = new ObjectMapper();

    record Call(String method, String path, String authorization, JsonNode body) {}

    final List<Call> calls = new CopyOnWriteArrayList<>();
    private final HttpServer http;
    private final AtomicInteger ids = new AtomicInteger();
    volatile int status = 200;
    volatile String refusal;

    FakeLifecycleApi() throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/api/sandboxes", this::handle);
        http.start();
    }

    String url() {
        return "http://127.0.0.1:" + http.getAddress().getPort();
    }

    List<Call> calls(String method) {
        return calls.stream().filter(c -> c.method().equals(method)).toList();
    }

    private void handle(HttpExchange x) throws IOException {
        String raw = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        JsonNode body = raw.isEmpty() ? null : JSON.readTree(raw);
        calls.add(new Call(
                x.getRequestMethod(),
                x.getRequestURI().getPath(),
                x.getRequestHeaders().getFirst("Authorization"),
                body));
        Object answer;
        if (!("Bearer " + TOKEN).equals(x.getRequestHeaders().getFirst("Authorization"))) {
            reply(x, 403, Map.of("error", "forbidden", "message", "not this server's client token"));
            return;
        }
        if (status != 200) {
            reply(x, status, Map.of("error", "forbidden", "message", "scripted"));
            return;
        }
        if (x.getRequestMethod().equals("DELETE")) {
            String id = x.getRequestURI().getPath().substring("/api/sandboxes/".length());
            answer = Map.of("ok", true, "id", id, "deleted", true, "state", "deleted");
        } else if (refusal != null) {
            answer = Map.of("ok", false, "error", "refused", "reason", refusal, "retryable", false);
        } else {
            String id = "sbx_" + Integer.toHexString(0xa000 + ids.incrementAndGet());
            List<Map<String, Object>> services = new ArrayList<>();
            for (JsonNode s : body.path("services")) {
                services.add(Map.of("service", s.asText(), "env", env(s.asText(), id)));
            }
            Map<String, Object> sandbox = new LinkedHashMap<>();
            sandbox.put("id", id);
            sandbox.put("owner", "job:ci-1");
            sandbox.put("services", services);
            answer = Map.of("ok", true, "sandbox", sandbox);
        }
        reply(x, 200, answer);
    }

    private static Map<String, String> env(String service, String id) {
        String prefix = switch (service) {
            case "postgres" -> "ROBOCO_TEST_DB_";
            case "redis" -> "ROBOCO_TEST_REDIS_";
            default -> "ROBOCO_TEST_MONGO_";
        };
        Map<String, String> env = new LinkedHashMap<>();
        env.put(prefix + "HOST", "127.0.0.1");
        env.put(prefix + "PORT", "4" + id.substring(id.length() - 4).replaceAll("[^0-9]", "1"));
        env.put(prefix + "USER", "u_" + id);
        env.put(prefix + "PASSWORD", "secret-" + id);
        env.put(prefix + "NAME", "db_" + id);
        env.put(prefix + "URL", service + "://u_" + id + ":secret-" + id + "@127.0.0.1/db_" + id);
        return env;
    }

    private static void reply(HttpExchange x, int status, Object body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        x.getResponseHeaders().add("Content-Type", "application/json");
        x.sendResponseHeaders(status, bytes.length);
        x.getResponseBody().write(bytes);
        x.close();
    }

    @Override
    public void close() {
        http.stop(0);
    }
}
