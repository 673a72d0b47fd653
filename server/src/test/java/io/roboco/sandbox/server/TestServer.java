package io.roboco.sandbox.server;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.FakeSettingsStore;
import io.roboco.sandbox.testkit.StubEngine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The server started in-process over testkit's fakes (stub engines, the fake runtime, the fake store),
 * with the one test HTTP client ({@link #api}) and what the server printed ({@link #console}).
 */
final class TestServer implements AutoCloseable {
    final FakeContainerRuntime runtime;
    final FakeSettingsStore store;
    final ByteArrayOutputStream console = new ByteArrayOutputStream();
    final RunningServer server;
    final ApiClient api;

    TestServer(Path stateDir, Boolean flagOverride) {
        this(ServerConfig.defaults(stateDir)
                .withPort(0)
                .withFlag(flagOverride)
                .withTokens(ApiClient.API_TOKEN, ApiClient.ADMIN_TOKEN));
    }

    TestServer(ServerConfig config) {
        this(config, new FakeSettingsStore());
    }

    TestServer(ServerConfig config, FakeSettingsStore store) {
        this(config, new FakeContainerRuntime(), StubEngine.registry(), store, store);
    }

    /** Over a given fake runtime and store (a restart: the next server finds what the previous one left). */
    TestServer(ServerConfig config, FakeContainerRuntime runtime, FakeSettingsStore store) {
        this(config, runtime, StubEngine.registry(), store, store);
    }

    /** Over the fake runtime and store, with {@code registry}'s engines (e.g. the real ones, for their majors). */
    TestServer(ServerConfig config, EngineRegistry registry) {
        this(config, new FakeContainerRuntime(), registry, new FakeSettingsStore());
    }

    private TestServer(
            ServerConfig config, FakeContainerRuntime runtime, EngineRegistry registry, FakeSettingsStore store) {
        this(config, runtime, registry, store, store);
    }

    /** Over any store (e.g. the real embedded one); {@link #store} is then null. */
    TestServer(ServerConfig config, SettingsStore other) {
        this(config, new FakeContainerRuntime(), StubEngine.registry(), other, null);
    }

    /** Over a real runtime and registry (ITs); {@link #runtime} and {@link #store} are then null. */
    TestServer(ServerConfig config, ContainerRuntime realRuntime, EngineRegistry registry, SettingsStore other) {
        this(config, realRuntime, registry, other, null);
    }

    private TestServer(
            ServerConfig config,
            ContainerRuntime runtime,
            EngineRegistry registry,
            SettingsStore store,
            FakeSettingsStore fake) {
        this.runtime = runtime instanceof FakeContainerRuntime f ? f : null;
        this.store = fake;
        server = SandboxServer.start(
                config, runtime, registry, store, Clock.systemUTC(), new PrintStream(console, true));
        api = new ApiClient(
                server.port(),
                tokenOr(config.apiToken(), ApiClient.API_TOKEN),
                tokenOr(config.adminToken(), ApiClient.ADMIN_TOKEN));
    }

    /** Opts project {@code shop} into postgres + redis, spawns the agent in {@code role} and gives it a task there. */
    void working(String slug, String role) {
        api.working(slug, role, "shop", "[\"postgres\",\"redis\"]");
    }

    @Override
    public void close() {
        server.close();
    }

    private static String tokenOr(String configured, String fallback) {
        return configured != null ? configured : fallback;
    }
}
