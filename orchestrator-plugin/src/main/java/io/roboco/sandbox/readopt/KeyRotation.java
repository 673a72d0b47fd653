package io.roboco.sandbox.readopt;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.secrets.CredentialCipher;
import io.roboco.sandbox.secrets.KeyFile;
import io.roboco.sandbox.secrets.UnsealException;
import io.roboco.sandbox.settings.SealedContainer;
import io.roboco.sandbox.settings.SealedCredentialStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import javax.crypto.SecretKey;

/**
 * {@code rotate-key}: every sealed row of one instance re-sealed under a new key, then the new key moved over the key
 * file. Crash-safe in order: the new key is written first to {@code <file>.next} (mode 0600); each row is re-sealed
 * only while it still holds what was read (a concurrent write is never overwritten); the key file is replaced last,
 * atomically. Run again after an interruption, it picks up {@code <file>.next} and finishes; a server started
 * meanwhile opens rows under either key ({@link VaultKey}).
 */
public final class KeyRotation {

    private KeyRotation() {}

    /**
     * @param resealed   rows now sealed under the new key
     * @param unopenable rows neither key opens (altered, or sealed under a key already lost): left as they are, their
     *                   sandboxes are treated as dead at the next start
     */
    public record Result(String oldKeyId, String newKeyId, int resealed, int alreadyNew, int unopenable) {}

    /** Why a rotation did not start: a sentence naming the file and what to do. */
    public static final class RotationException extends Exception {
        public RotationException(String message) {
            super(message);
        }
    }

    public static Result rotate(SealedCredentialStore store, String instance, Path file) throws RotationException {
        if (!Files.exists(file)) {
            throw new RotationException(
                    "the key file " + file + " does not exist; there is nothing to rotate (the server generates it"
                            + " at its first start; check ROBOCO_SANDBOX_SECRET_KEY_FILE and ROBOCO_SANDBOX_STATE_DIR)");
        }
        KeyFile.Loaded current = KeyFile.load(file, false);
        if (current instanceof KeyFile.Loaded.Unusable u) {
            throw new RotationException(u.reason() + "; restore the key file before rotating");
        }
        SecretKey old = ((KeyFile.Loaded.Key) current).key();
        Path nextFile = VaultKey.next(file);
        SecretKey next;
        try {
            KeyFile.Loaded pending = KeyFile.load(nextFile, false);
            next = pending instanceof KeyFile.Loaded.Key k ? k.key() : KeyFile.generate(nextFile);
        } catch (IOException e) {
            throw new RotationException("the new key could not be written to " + nextFile + ": "
                    + e.getClass().getSimpleName() + "; check that the directory is writable");
        }
        CredentialCipher cipher = new CredentialCipher(next, List.of(old));
        int resealed = 0;
        int alreadyNew = 0;
        int unopenable = 0;
        for (SealedContainer row : store.sealedOf(instance)) {
            if (cipher.sealedUnderCurrentKey(row.sealed())) {
                alreadyNew++;
                continue;
            }
            try {
                var binding = CredentialVault.binding(row.sandboxId(), row.owner(), row.containerId());
                Credentials credentials = cipher.open(row.sealed(), binding);
                if (store.resealIf(
                        row.sandboxId(), row.containerId(), row.sealed(), cipher.seal(credentials, binding))) {
                    resealed++;
                }
            } catch (UnsealException e) {
                unopenable++;
            }
        }
        try {
            Files.move(nextFile, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new RotationException("every row is re-sealed under the new key in " + nextFile
                    + ", but it could not replace " + file + " (" + e.getClass().getSimpleName()
                    + "); run rotate-key again to finish (the server opens both meanwhile)");
        }
        return new Result(KeyFile.fingerprint(old), KeyFile.fingerprint(next), resealed, alreadyNew, unopenable);
    }
}
