package io.roboco.sandbox.cli;

import io.roboco.sandbox.readopt.KeyRotation;
import io.roboco.sandbox.server.config.ConfigException;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.store.JdbcSettingsStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code rotate-key}: every sealed credential row of this instance re-sealed under a new key, which then replaces the
 * key file ({@link KeyRotation}: crash-safe and resumable). Configured like the server (state dir, store URL, key
 * file); refused while a server answers (it would keep sealing under the old key). Exit 0 when every row was
 * re-sealed, 1 when some could not be opened or the rotation could not run, 2 for bad usage or configuration.
 */
@Command(
        name = "rotate-key",
        mixinStandardHelpOptions = true,
        description = {
            "Re-seal every stored sandbox credential under a new key and replace the key file (ROBOCO_SANDBOX_SECRET_KEY_FILE).",
            "Stop the server first; with re-adoption on, the stop and the next start keep every agent's sandbox.",
            "Example: ROBOCO_SANDBOX_STATE_DIR=/var/lib/roboco-sandbox roboco-sandbox rotate-key"
        })
final class RotateKeyCommand implements Callable<Integer> {
    @Mixin
    ServerClient server;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ServerConfig config;
        try {
            config = ServerConfig.fromEnv(server.env);
        } catch (ConfigException e) {
            err.println("roboco-sandbox rotate-key: " + e.getMessage());
            return 2;
        }
        if (server.reachable()) {
            err.println("roboco-sandbox rotate-key: a server answers at " + server.base()
                    + "; stop it first (it would keep sealing new"
                    + " sandboxes under the old key), rotate, then start it again");
            return 1;
        }
        Path idFile = config.stateDir().resolve("instance-id");
        String instance;
        try {
            instance = Files.readString(idFile).strip();
        } catch (IOException e) {
            err.println("roboco-sandbox rotate-key: " + idFile
                    + " is not readable, so this is not a server's state directory; set"
                    + " ROBOCO_SANDBOX_STATE_DIR to the server's");
            return 1;
        }
        Path keyFile = config.secretKeyFile();
        KeyRotation.Result result;
        try (SettingsStore store = config.stateUrl() != null
                ? JdbcSettingsStore.open(config.stateUrl(), config.stateUser(), config.statePassword())
                : JdbcSettingsStore.embedded(config.stateDir())) {
            result = KeyRotation.rotate(store, instance, keyFile);
        } catch (KeyRotation.RotationException | RuntimeException e) {
            err.println("roboco-sandbox rotate-key: " + e.getMessage());
            return 1;
        }
        out.println("rotated the credential key of instance " + instance + " in " + keyFile + ": " + result.oldKeyId()
                + " -> "
                + result.newKeyId() + "; " + result.resealed() + " row(s) re-sealed, " + result.alreadyNew()
                + " already under the new key, "
                + result.unopenable() + " could not be opened"
                + (result.unopenable() == 0
                        ? ""
                        : " (left as they are: their sandboxes are treated as dead at the next start)"));
        out.flush();
        return result.unopenable() == 0 ? 0 : 1;
    }
}
