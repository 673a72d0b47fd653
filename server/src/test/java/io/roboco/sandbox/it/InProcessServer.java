package io.roboco.sandbox.it;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.ServerConfig;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * The real server in this JVM over real Docker and the local images, its runtime recorded. Tests get
 * one (and its clean-up) through testkit's {@link InProcessServerExtension}:
 * {@code InProcessServerExtension.startedBeforeAll(dir -> new InProcessServer(dir, "1h", "2m", "30s", null))}.
 */
public final class InProcessServer implements InProcessServerExtension.Server {
    public final RecordingRuntime runtime;
    public final SettingsStore store;
    /** Per agent, when (System.nanoTime) each granted request_sandbox was decided: its audit record was written. */
    public final Map<String, java.util.Queue<Long>> grantDecidedAt = new java.util.concurrent.ConcurrentHashMap<>();
    public final RunningServer server;
    public final ApiClient api;

    public InProcessServer(Path stateDir, String tick, String grace, String readyTimeout, SecretSource secrets) {
        ContainerRuntime docker = LocalImages.requireDockerAndImages();
        this.runtime = new RecordingRuntime(docker);
        this.store = recordingGrants(new InMemorySettingsStore());
        ServerConfig config = ServerConfig.fromEnv(Fixtures.serverEnv(stateDir, tick, grace, readyTimeout)).withPort(0);
        this.server = SandboxServer.start(config, runtime, EngineRegistry.defaults(), store, Clock.systemUTC(),
                secrets == null ? SecretSource.secure() : secrets);
        this.api = new ApiClient(server.port());
    }

    @Override
    public int port() {
        return server.port();
    }

    @Override
    public String instanceId() {
        return server.instanceId();
    }

    /** One janitor sweep now, as a tick runs it; its report. */
    public io.roboco.sandbox.janitor.SweepReport sweepNow() {
        return server.sweepNow();
    }

    @Override
    public void close() {
        server.close();
    }

    /** The store, with the moment of every granted request_sandbox recorded as its audit record is appended. */
    private SettingsStore recordingGrants(SettingsStore real) {
        return (SettingsStore) java.lang.reflect.Proxy.newProxyInstance(SettingsStore.class.getClassLoader(),
                new Class<?>[] {SettingsStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("append") && args != null && args[0] instanceof AuditRecord r
                            && r.verb().equals("request_sandbox") && r.decision().equals("granted")) {
                        grantDecidedAt.computeIfAbsent(r.agent(), a -> new java.util.concurrent.ConcurrentLinkedQueue<>()).add(System.nanoTime());
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** Env of the standalone server for tests: flag on, host network, local images, fixed tokens, janitor timing. */
    public static Map<String, String> env(Path stateDir, String tick, String grace, String readyTimeout) {
        return Fixtures.serverEnv(stateDir, tick, grace, readyTimeout);
    }
}
