package io.roboco.sandbox.secrets;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Set;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The credential key on disk: 32 random bytes, base64 on one line, mode 0600. Generated once when
 * absent ({@link #loadOrCreate}); never logged, never put in the database or an error message (the
 * messages name the file, not its content).
 */
public final class KeyFile {

    private KeyFile() {}

    /** The outcome of reading the key: the key, or why there is none (a sentence naming the file). */
    public sealed interface Loaded {
        record Key(SecretKey key, boolean generated) implements Loaded {}

        record Unusable(String reason) implements Loaded {}
    }

    /** Reads the key at {@code file}; when the file is absent and {@code create} is set, generates it (0600). */
    public static Loaded load(Path file, boolean create) {
        if (!Files.exists(file)) {
            if (!create) {
                return new Loaded.Unusable("the key file " + file + " does not exist");
            }
            try {
                return new Loaded.Key(generate(file), true);
            } catch (FileAlreadyExistsException raced) {
                return load(file, false);
            } catch (IOException e) {
                return new Loaded.Unusable("the key file " + file + " could not be created: "
                        + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage()));
            }
        }
        try {
            String text = Files.readString(file).trim();
            byte[] raw = Base64.getDecoder().decode(text);
            if (raw.length != 32) {
                return new Loaded.Unusable(
                        "the key file " + file + " does not hold a 256-bit key (base64 of 32 bytes)");
            }
            return new Loaded.Key(new SecretKeySpec(raw, "AES"), false);
        } catch (IOException e) {
            return new Loaded.Unusable(
                    "the key file " + file + " cannot be read: " + e.getClass().getSimpleName());
        } catch (IllegalArgumentException e) {
            return new Loaded.Unusable("the key file " + file + " is not base64 of a 256-bit key");
        }
    }

    /** A fresh random key, written to {@code file} (mode 0600) only if no file is there yet. */
    public static SecretKey generate(Path file) throws IOException {
        SecretKey key = newKey();
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, ".key", ".tmp");
        try {
            restrict(tmp);
            Files.writeString(tmp, Base64.getEncoder().encodeToString(key.getEncoded()) + "\n");
            try {
                Files.createLink(file, tmp);
            } catch (UnsupportedOperationException | AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        return key;
    }

    /** Writes {@code key} over {@code file} atomically (rotation), mode 0600. */
    public static void replace(Path file, SecretKey key) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, ".key", ".tmp");
        try {
            restrict(tmp);
            Files.writeString(tmp, Base64.getEncoder().encodeToString(key.getEncoded()) + "\n");
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    public static SecretKey newKey() {
        try {
            KeyGenerator generator = KeyGenerator.getInstance("AES");
            generator.init(256);
            return generator.generateKey();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES key generation is not available in this JDK", e);
        }
    }

    /** A short non-secret id of the key: the first 8 hex digits of its SHA-256. */
    public static String fingerprint(SecretKey key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getEncoded());
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void restrict(Path path) throws IOException {
        try {
            Set<PosixFilePermission> owner = PosixFilePermissions.fromString("rw-------");
            Files.setPosixFilePermissions(path, owner);
        } catch (UnsupportedOperationException nonPosix) {
            // not a POSIX file system: the directory's own protection applies
        }
    }
}
