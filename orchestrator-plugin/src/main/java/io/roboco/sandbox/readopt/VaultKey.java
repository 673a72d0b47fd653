package io.roboco.sandbox.readopt;

import io.roboco.sandbox.secrets.CredentialCipher;
import io.roboco.sandbox.secrets.KeyFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.crypto.SecretKey;

/**
 * The key file at start: read, or generated when it is missing (mode 0600); unusable (unreadable, not a 256-bit key,
 * not creatable) is a status, never a crash. A {@code <file>.next} left by an interrupted {@code rotate-key} is read
 * too, so rows it already re-sealed still open (sealing stays on the key in the file until the rotation finishes).
 */
public final class VaultKey {
    /** The suffix of the key a rotation writes first, before it re-seals rows and moves it over the key file. */
    public static final String NEXT_SUFFIX = ".next";

    private VaultKey() {}

    /** The key's status and, when usable, the cipher to seal and open with (null otherwise). */
    public record Opened(KeyStatus status, CredentialCipher cipher) {}

    public static Opened open(Path file) {
        KeyFile.Loaded loaded = KeyFile.load(file, true);
        if (loaded instanceof KeyFile.Loaded.Unusable u) {
            return new Opened(KeyStatus.unusable(file, u.reason()), null);
        }
        KeyFile.Loaded.Key key = (KeyFile.Loaded.Key) loaded;
        List<SecretKey> alsoOpens = List.of();
        Path next = next(file);
        if (Files.exists(next) && KeyFile.load(next, false) instanceof KeyFile.Loaded.Key pending) {
            alsoOpens = List.of(pending.key());
        }
        CredentialCipher cipher = new CredentialCipher(key.key(), alsoOpens);
        return new Opened(key.generated() ? KeyStatus.generated(file) : KeyStatus.read(file), cipher);
    }

    public static Path next(Path file) {
        return file.resolveSibling(file.getFileName() + NEXT_SUFFIX);
    }
}
