package io.roboco.sandbox.server;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.store.JdbcSettingsStore;
import java.time.Clock;

/** The production parts: the engine registry, the Docker runtime and the persistent settings store. */
final class Production {
    private Production() {}

    static RunningServer start(ServerConfig config) {
        EngineRegistry registry = registry();
        config.validateAgainst(registry);
        StateDir.open(config.stateDir()); // create it 0700 before the embedded database lands in it
        SettingsStore store = config.stateUrl() != null
                ? JdbcSettingsStore.open(config.stateUrl(), config.stateUser(), config.statePassword())
                : JdbcSettingsStore.embedded(config.stateDir());
        ContainerRuntime runtime;
        try {
            runtime = DockerContainerRuntime.connect(
                    null, DockerContainerRuntime.DEFAULT_EXEC_TIMEOUT, config.containerLogs());
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        try {
            return SandboxServer.start(config, runtime, registry, store, Clock.systemUTC());
        } catch (RuntimeException e) {
            runtime.close();
            store.close();
            throw e;
        }
    }

    static EngineRegistry registry() {
        return EngineRegistry.defaults();
    }
}
