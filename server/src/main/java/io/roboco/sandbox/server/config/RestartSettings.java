package io.roboco.sandbox.server.config;

import java.nio.file.Path;
import java.util.Map;

/**
 * What a restart keeps: whether sandboxes handed out survive a restart (re-adopted at the next start, kept by a
 * graceful shutdown), and the key file their credentials are sealed under.
 *
 * @param readopt {@code ROBOCO_SANDBOX_READOPT} (true): re-adopt this instance's live sandboxes at start and keep them
 *                at a graceful shutdown; false: the seed's behaviour (a shutdown releases every sandbox, a start forgets
 *                what a previous process held, the janitor sweeps it, and nothing is sealed)
 * @param keyFile {@code ROBOCO_SANDBOX_SECRET_KEY_FILE}: the AES-256 key the credentials are sealed under; null for
 *                {@value #DEFAULT_KEY_FILE} in the state directory (generated there once, mode 0600)
 */
public record RestartSettings(boolean readopt, Path keyFile) {
    public static final String DEFAULT_KEY_FILE = "secret.key";

    public static RestartSettings defaults() {
        return new RestartSettings(true, null);
    }

    /** The key file to use: the configured one, else {@value #DEFAULT_KEY_FILE} in {@code stateDir}. */
    public Path keyFileIn(Path stateDir) {
        return keyFile != null ? keyFile : stateDir.resolve(DEFAULT_KEY_FILE);
    }

    public RestartSettings withReadopt(boolean on) {
        return new RestartSettings(on, keyFile);
    }

    public RestartSettings withKeyFile(Path file) {
        return new RestartSettings(readopt, file);
    }

    static RestartSettings fromEnv(Map<String, String> env) {
        String file = env.get("ROBOCO_SANDBOX_SECRET_KEY_FILE");
        return new RestartSettings(
                EnvValues.bool(
                        env,
                        "ROBOCO_SANDBOX_READOPT",
                        true,
                        "true (default: sandboxes survive a restart) or false (a restart releases them)"),
                file == null || file.isBlank() ? null : Path.of(file.trim()));
    }
}
