package io.roboco.sandbox.server.health;

import io.roboco.sandbox.readopt.VaultKey;
import io.roboco.sandbox.secrets.CredentialCipher;
import io.roboco.sandbox.secrets.KeyFile;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.SealedContainer;
import io.roboco.sandbox.settings.SettingsStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The doctor's {@code secret-key} check: the key file sandbox credentials are sealed under exists, is a key, is readable
 * by the server's user only, and opens this instance's sealed rows (by key id: nothing is decrypted). Never shows the key.
 */
final class SecretKeyCheck {
    static final String NAME = "secret-key";

    private SecretKeyCheck() {}

    static DoctorCheck check(ServerConfig config, SettingsStore settings) {
        if (!config.restart().readopt()) {
            return DoctorCheck.ok(
                    NAME,
                    "re-adoption is off (ROBOCO_SANDBOX_READOPT=false): no credential is sealed, a restart releases"
                            + " every sandbox");
        }
        Path file = config.secretKeyFile();
        List<SealedContainer> rows = rows(config, settings);
        if (!Files.exists(file)) {
            return rows.isEmpty()
                    ? DoctorCheck.warn(
                            NAME,
                            file + " does not exist yet",
                            "the server generates it (mode 0600) at its next start; back"
                                    + " it up with the state directory")
                    : DoctorCheck.fail(
                            NAME,
                            file + " is missing, but " + rows.size() + " sealed credential(s) of this instance need it",
                            "restore it (from the state directory's backup) before the next start, or those sandboxes are closed and"
                                    + " re-provisioned on their next call");
        }
        KeyFile.Loaded loaded = KeyFile.load(file, false);
        if (loaded instanceof KeyFile.Loaded.Unusable u) {
            return DoctorCheck.fail(
                    NAME,
                    u.reason(),
                    "restore the key file; until then sandboxes are not sealed, a shutdown releases" + " them, and the "
                            + rows.size() + " sealed credential(s) are treated as dead at the next start");
        }
        String id = KeyFile.fingerprint(((KeyFile.Loaded.Key) loaded).key());
        try {
            String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
            if (!mode.substring(3).equals("------")) {
                return DoctorCheck.fail(
                        NAME, file + " has mode " + mode + ": others can read the key", "chmod 600 " + file);
            }
        } catch (UnsupportedOperationException | IOException e) {
            // not a POSIX file system: the directory's own protection applies
        }
        if (Files.exists(VaultKey.next(file))) {
            return DoctorCheck.warn(
                    NAME,
                    "an interrupted rotate-key left " + VaultKey.next(file) + " (rows open under either key meanwhile)",
                    "stop the server and run roboco-sandbox rotate-key again to finish");
        }
        long foreign = rows.stream()
                .filter(r -> !id.equals(CredentialCipher.keyIdOf(r.sealed())))
                .count();
        if (foreign > 0) {
            return DoctorCheck.warn(
                    NAME,
                    foreign + " of " + rows.size() + " sealed credential(s) were sealed under another key than " + id
                            + " in " + file + ": their sandboxes are treated as dead at the next start",
                    "put back the key file they were sealed under (ROBOCO_SANDBOX_SECRET_KEY_FILE) before the next start");
        }
        return DoctorCheck.ok(
                NAME, "key " + id + " in " + file + " (owner-only), " + rows.size() + " sealed credential(s) under it");
    }

    /** This instance's sealed rows; none when the store or the instance id cannot be read (other checks say why). */
    private static List<SealedContainer> rows(ServerConfig config, SettingsStore settings) {
        if (settings == null) {
            return List.of();
        }
        try {
            String instance =
                    Files.readString(config.stateDir().resolve("instance-id")).strip();
            return settings.sealedOf(instance);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
