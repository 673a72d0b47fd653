package io.roboco.sandbox.junit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Leases from a RoboCo server's lifecycle API with a client token: {@code POST /api/sandboxes} (the token's owner,
 * the CI job, owns it, under that owner's quota) and {@code DELETE /api/sandboxes/{id}} at the end. The TTL sent with
 * the create is the safety net when this JVM dies before it deletes.
 */
final class ServerLeases implements LeaseSource {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CREATE_TIMEOUT = Duration.ofMinutes(3);

    private final String base;
    private final String token;
    private final String owner;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** @param owner sent as the create's owner when set (the server checks it is the token's); null: the token's */
    ServerLeases(String url, String token, String owner) {
        this.base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.token = token;
        this.owner = owner;
    }

    @Override
    public Lease lease(LeaseRequest r) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode();
        if (owner != null) {
            body.put("owner", owner);
        }
        body.put("project", r.project());
        r.services().forEach(body.putArray("services")::add);
        body.put("name", r.name());
        body.put("ttl", r.ttl());
        ObjectNode labels = body.putObject("labels");
        r.labels().forEach(labels::put);
        if (r.template() != null) {
            body.put("template", r.template());
        }
        HttpResponse<String> answer = send("POST", "/api/sandboxes", body.toString(), CREATE_TIMEOUT);
        JsonNode json = parse(answer, "POST /api/sandboxes");
        if (answer.statusCode() != 200 || !json.path("ok").asBoolean(false)) {
            throw new IllegalStateException("the RoboCo server at " + base + " made no sandbox for project '"
                    + r.project() + "' " + r.services() + ": " + failure(answer, json));
        }
        JsonNode sandbox = json.path("sandbox");
        Map<String, Map<String, String>> env = new LinkedHashMap<>();
        for (JsonNode s : sandbox.path("services")) {
            Map<String, String> one = new LinkedHashMap<>();
            s.path("env")
                    .fields()
                    .forEachRemaining(e -> one.put(e.getKey(), e.getValue().asText()));
            env.put(s.path("service").asText(), one);
        }
        return new Lease(sandbox.path("id").asText(), env, this);
    }

    @Override
    public void release(Lease lease) throws IOException, InterruptedException {
        HttpResponse<String> answer = send("DELETE", "/api/sandboxes/" + lease.id(), null, Duration.ofMinutes(1));
        if (answer.statusCode() != 200 && answer.statusCode() != 404) {
            throw new IllegalStateException("the RoboCo server at " + base + " did not delete sandbox " + lease.id()
                    + " (its TTL will end it): " + failure(answer, parse(answer, "DELETE")));
        }
    }

    @Override
    public String describe() {
        return "the RoboCo server at " + base;
    }

    @Override
    public String defaultProject() {
        return null;
    }

    private HttpResponse<String> send(String method, String path, String body, Duration timeout)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(timeout)
                .header("Authorization", "Bearer " + token)
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode parse(HttpResponse<String> answer, String what) {
        try {
            return JSON.readTree(answer.body());
        } catch (IOException e) {
            throw new IllegalStateException(
                    what + " answered HTTP " + answer.statusCode() + " with a body that is not JSON");
        }
    }

    private static String failure(HttpResponse<String> answer, JsonNode json) {
        String reason = json.hasNonNull("reason")
                ? json.get("reason").asText()
                : json.path("message").asText("");
        String hint = switch (answer.statusCode()) {
            case 401, 403 -> " (check ROBOCO_SANDBOX_CLIENT_TOKEN: a client token minted for the CI job's owner)";
            default -> "";
        };
        return "HTTP " + answer.statusCode() + " " + json.path("error").asText("") + ": " + reason + hint;
    }
}
