package io.roboco.sandbox.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.verbs.MapSettingsStore;
import io.roboco.sandbox.verbs.StubContainerRuntime;
import io.roboco.sandbox.verbs.StubEngine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/** The server started in-process over stub engines, a stub runtime and a map store; an HTTP client for it. */
final class TestServer implements AutoCloseable {
    static final String API = "api-token-0123456789abcdef";
    static final String ADMIN = "admin-token-0123456789abcdef";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    final StubContainerRuntime runtime;
    final MapSettingsStore store;
    final ByteArrayOutputStream console = new ByteArrayOutputStream();
    final RunningServer server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    TestServer(Path stateDir, Boolean flagOverride) {
        this(ServerConfig.defaults(stateDir).withPort(0).withFlag(flagOverride).withTokens(API, ADMIN));
    }

    TestServer(ServerConfig config) {
        this(config, new MapSettingsStore());
    }

    TestServer(ServerConfig config, MapSettingsStore store) {
        this.store = store;
        this.runtime = new StubContainerRuntime();
        server = SandboxServer.start(config, runtime, StubEngine.registry(), store, Clock.systemUTC(), new PrintStream(console, true));
    }

    /** Over the stub runtime and a map store, with {@code registry}'s engines (e.g. the real ones, for their majors). */
    TestServer(ServerConfig config, EngineRegistry registry) {
        this.store = new MapSettingsStore();
        this.runtime = new StubContainerRuntime();
        server = SandboxServer.start(config, runtime, registry, store, Clock.systemUTC(), new PrintStream(console, true));
    }

    /** Over any store (e.g. the real embedded one); {@link #store} is then null. */
    TestServer(ServerConfig config, SettingsStore other) {
        this.store = null;
        this.runtime = new StubContainerRuntime();
        server = SandboxServer.start(config, runtime, StubEngine.registry(), other, Clock.systemUTC(), new PrintStream(console, true));
    }

    /** Over a real runtime and registry (ITs); {@link #runtime} and {@link #store} are then null. */
    TestServer(ServerConfig config, ContainerRuntime realRuntime, EngineRegistry registry, SettingsStore other) {
        this.store = null;
        this.runtime = null;
        server = SandboxServer.start(config, realRuntime, registry, other, Clock.systemUTC(), new PrintStream(console, true));
    }

    record Reply(int status, String body) {
        @SuppressWarnings("unchecked")
        Map<String, Object> json() {
            try {
                return MAPPER.readValue(body, Map.class);
            } catch (Exception e) {
                throw new AssertionError("not JSON: " + body, e);
            }
        }
    }

    Reply send(String method, String path, String token, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(120))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body());
        } catch (Exception e) {
            throw new AssertionError(method + " " + path + " failed", e);
        }
    }

    Reply admin(String method, String path, String body) {
        return send(method, path, ADMIN, body);
    }

    Reply agent(String method, String path, String body) {
        return send(method, path, API, body);
    }

    Reply verb(String slug, String verb, String body) {
        return agent("POST", "/api/agents/" + slug + "/verbs/" + verb, body);
    }

    /** Opts project {@code shop} into postgres + redis, spawns the agent and gives it a task. */
    void working(String slug, String role) {
        admin("PUT", "/api/projects/shop", "{\"name\":\"Shop\",\"sandbox_services\":[\"postgres\",\"redis\"]}");
        agent("POST", "/api/agents/" + slug + "/spawn", "{\"role\":\"" + role + "\",\"project\":\"shop\"}");
        Reply r = verb(slug, "give_me_work", "{\"project\":\"shop\",\"task\":\"T-1\"}");
        if (r.status() != 200 || !Boolean.TRUE.equals(r.json().get("ok"))) {
            throw new AssertionError("give_me_work: " + r);
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
