package io.roboco.sandbox.lifecycle;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.RecordingRuntime;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The real server in this JVM over real Docker and the local images, on the store and clock a lifecycle
 * test chooses, with extra settings (TTLs, quotas, capacity). Closing it stops the server and removes
 * every container of its instance.
 */
final class LifecycleServer implements AutoCloseable {
    final RunningServer server;
    final ApiClient api;
    final SettingsStore store;

    LifecycleServer(Path stateDir, Map<String, String> settings, SettingsStore store, Clock clock) {
        Map<String, String> env = new HashMap<>(Fixtures.serverEnv(stateDir, "1h", "2m", "30s"));
        env.putAll(settings);
        this.store = store;
        this.server = SandboxServer.start(
                ServerConfig.fromEnv(env).withPort(0),
                new RecordingRuntime(LocalImages.requireDockerAndImages()),
                EngineRegistry.defaults(),
                store,
                clock);
        this.api = new ApiClient(server.port());
    }

    String instanceId() {
        return server.instanceId();
    }

    /** Running containers of this server's instance. */
    List<String> running() {
        return Fixtures.runningOf(server.instanceId());
    }

    /** Opts project {@code id} into {@code servicesJson} (a JSON array) with extra project JSON fields. */
    void project(String id, String servicesJson, String extra) {
        ApiClient.Reply r = api.admin(
                "PUT",
                "/api/projects/" + id,
                "{\"sandbox_services\":" + servicesJson + (extra == null || extra.isEmpty() ? "" : "," + extra) + "}");
        if (r.status() != 200) {
            throw new AssertionError("PUT project " + id + ": " + r);
        }
    }

    /** POST /api/sandboxes. */
    ApiClient.Reply create(String json) {
        return api.admin("POST", "/api/sandboxes", json);
    }

    @Override
    public void close() {
        String instance = server.instanceId();
        server.close();
        System.out.println(
                "lifecycle IT cleanup removed " + Fixtures.removeAllOf(instance) + " container(s) of " + instance);
    }
}
