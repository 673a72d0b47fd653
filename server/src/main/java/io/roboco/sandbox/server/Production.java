package io.roboco.sandbox.server;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.server.config.ConfigException;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.server.health.Doctor;
import io.roboco.sandbox.server.health.DoctorCheck;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.store.JdbcSettingsStore;
import java.nio.file.Files;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * The production parts: the engine registry, the container runtime (Docker or Kubernetes) and the persistent settings store; and the doctor's
 * machine mode over them (the CLI's {@code doctor} when no server answers).
 */
public final class Production {
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
            runtime = Runtimes.connect(config);
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

    /**
     * The CLI's machine mode (no server running): Docker, the images, the store (opened and closed again: the embedded
     * one is free when no server holds it), the state dir, the tokens, the flag and the limits, from {@code env}.
     */
    public static List<DoctorCheck> checkMachine(Map<String, String> env) {
        ServerConfig config;
        try {
            config = ServerConfig.fromEnv(env);
        } catch (ConfigException e) {
            return List.of(DoctorCheck.fail("config", e.getMessage(), "fix the setting the message names"));
        }
        EngineRegistry registry = registry();
        ProvisionSettings images = ServerWiring.provisioning(config, "doctor");
        ContainerRuntime[] docker = new ContainerRuntime[1];
        SettingsStore[] store = new SettingsStore[1];
        try {
            return new Doctor(
                            config,
                            registry,
                            images,
                            () -> docker[0] = DockerContainerRuntime.connect(),
                            () -> store[0] = openStore(config),
                            null,
                            Clock.systemUTC(),
                            Doctor.findRepoRoot(env))
                    .run();
        } finally {
            if (docker[0] != null) {
                docker[0].close();
            }
            if (store[0] != null) {
                store[0].close();
            }
        }
    }

    private static SettingsStore openStore(ServerConfig config) {
        if (config.stateUrl() != null) {
            return JdbcSettingsStore.open(config.stateUrl(), config.stateUser(), config.statePassword());
        }
        if (!Files.isRegularFile(config.stateDir().resolve(JdbcSettingsStore.EMBEDDED_NAME + ".mv.db"))) {
            return null; // a fresh machine: the server creates it at its first start
        }
        return JdbcSettingsStore.embedded(config.stateDir());
    }
}
