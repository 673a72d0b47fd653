package io.roboco.sandbox.it;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.janitor.SweepReport;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
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
    public final Path stateDir;
    public final RecordingRuntime runtime;
    public final SettingsStore store;
    /** The engines' seam (liveness checks can be parked); null unless the server was started with it. */
    public final GatedEngines engines;

    public final RunningServer server;
    public final ApiClient api;

    public InProcessServer(Path stateDir, String tick, String grace, String readyTimeout, SecretSource secrets) {
        this(stateDir, tick, grace, readyTimeout, secrets, null);
    }

    /** With the default engines behind {@code engines}' gates (null: the default engines as they are). */
    public InProcessServer(
            Path stateDir, String tick, String grace, String readyTimeout, SecretSource secrets, GatedEngines engines) {
        this(stateDir, Fixtures.serverEnv(stateDir, tick, grace, readyTimeout), secrets, engines);
    }

    private InProcessServer(Path stateDir, Map<String, String> env, SecretSource secrets, GatedEngines engines) {
        ContainerRuntime docker = LocalImages.requireDockerAndImages();
        this.stateDir = stateDir;
        this.runtime = new RecordingRuntime(docker);
        this.store = new InMemorySettingsStore();
        this.engines = engines;
        ServerConfig config = ServerConfig.fromEnv(env).withPort(0);
        EngineRegistry registry = engines == null ? EngineRegistry.defaults() : engines.wrap(EngineRegistry.defaults());
        this.server = SandboxServer.start(
                config, runtime, registry, store, Clock.systemUTC(), secrets == null ? SecretSource.secure() : secrets);
        this.api = new ApiClient(server.port());
    }

    /**
     * With {@code settings} ({@code ROBOCO_SANDBOX_*}) over the test defaults (janitor tick 1h, grace 2m, ready
     * timeout 60s): small limits, so that an attack on them is quick.
     */
    public static InProcessServer withSettings(Path stateDir, Map<String, String> settings) {
        Map<String, String> env = Fixtures.serverEnv(stateDir, "1h", "2m", "60s");
        env.putAll(settings);
        return new InProcessServer(stateDir, env, null, null);
    }

    /** {@link #withSettings(Path, Map)} issuing its secrets from {@code secrets} (a test that looks for them). */
    public static InProcessServer withSettings(Path stateDir, Map<String, String> settings, SecretSource secrets) {
        Map<String, String> env = Fixtures.serverEnv(stateDir, "1h", "2m", "60s");
        env.putAll(settings);
        return new InProcessServer(stateDir, env, secrets, null);
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
    public SweepReport sweepNow() {
        return server.sweepNow();
    }

    @Override
    public void close() {
        server.close();
    }

    /** Env of the standalone server for tests: flag on, host network, local images, fixed tokens, janitor timing. */
    public static Map<String, String> env(Path stateDir, String tick, String grace, String readyTimeout) {
        return Fixtures.serverEnv(stateDir, tick, grace, readyTimeout);
    }
}
