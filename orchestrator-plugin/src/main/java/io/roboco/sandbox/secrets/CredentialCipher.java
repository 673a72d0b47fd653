package io.roboco.sandbox.secrets;

import io.roboco.sandbox.engine.Credentials;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Seals a sandbox's credentials for the store with AES-256-GCM (JDK only): a fresh 96-bit nonce per
 * write, and associated data that binds the ciphertext to its row (sandbox id, owner, container id),
 * so a ciphertext copied onto another row, or altered, fails to open. The text form is
 * {@code v1.<key id>.<base64(nonce || ciphertext || tag)>}; the key id lets a rotation tell which key
 * sealed a row. Thread-safe; the key never appears in a message.
 */
public final class CredentialCipher {
    private static final String VERSION = "v1";
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;

    private final SecretKey key;
    private final String keyId;
    /** Every key this cipher opens with, by key id: the current one, and those of an unfinished rotation. */
    private final Map<String, SecretKey> opening = new LinkedHashMap<>();

    private final SecureRandom random;

    public CredentialCipher(SecretKey key) {
        this(key, List.of(), new SecureRandom());
    }

    /** Seals with {@code key}; opens what {@code key} or any of {@code alsoOpens} sealed (a rotation under way). */
    public CredentialCipher(SecretKey key, Collection<SecretKey> alsoOpens) {
        this(key, alsoOpens, new SecureRandom());
    }

    CredentialCipher(SecretKey key, SecureRandom random) {
        this(key, List.of(), random);
    }

    private CredentialCipher(SecretKey key, Collection<SecretKey> alsoOpens, SecureRandom random) {
        requireAes256(key);
        this.key = key;
        this.keyId = KeyFile.fingerprint(key);
        this.random = random;
        opening.put(keyId, key);
        for (SecretKey other : alsoOpens) {
            requireAes256(other);
            opening.putIfAbsent(KeyFile.fingerprint(other), other);
        }
    }

    private static void requireAes256(SecretKey key) {
        if (!"AES".equalsIgnoreCase(key.getAlgorithm()) || key.getEncoded() == null || key.getEncoded().length != 32) {
            throw new IllegalArgumentException("the credential key must be a 256-bit AES key");
        }
    }

    /** True when {@code sealed} was sealed under the current key (a rotation has nothing left to do for it). */
    public boolean sealedUnderCurrentKey(String sealed) {
        return keyId.equals(keyIdOf(sealed));
    }

    /** A short, non-secret name of the key (the first bytes of its SHA-256), stored beside each row. */
    public String keyId() {
        return keyId;
    }

    /** Seals {@code credentials} for the row named by {@code binding}. */
    public String seal(Credentials credentials, RowBinding binding) {
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(binding.associatedData());
            byte[] sealed = cipher.doFinal(encode(credentials));
            byte[] out = new byte[nonce.length + sealed.length];
            System.arraycopy(nonce, 0, out, 0, nonce.length);
            System.arraycopy(sealed, 0, out, nonce.length, sealed.length);
            return VERSION + "." + keyId + "." + Base64.getEncoder().encodeToString(out);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(
                    "AES-GCM is not available in this JDK: " + e.getClass().getSimpleName(), e);
        }
    }

    /**
     * Opens a value {@link #seal} made for the same row. Fails with {@link UnsealException} (never the
     * plaintext or the key in its message) when the value is malformed, was sealed under another key,
     * was altered, or belongs to another row.
     */
    public Credentials open(String sealed, RowBinding binding) throws UnsealException {
        String[] parts = sealed == null ? new String[0] : sealed.split("\\.", 3);
        if (parts.length != 3 || !VERSION.equals(parts[0])) {
            throw new UnsealException("not a sealed credential of format " + VERSION);
        }
        SecretKey opener = opening.get(parts[1]);
        if (opener == null) {
            throw new UnsealException("sealed under key " + parts[1] + ", not the current key " + keyId);
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(parts[2]);
        } catch (IllegalArgumentException e) {
            throw new UnsealException("the sealed credential is not valid base64");
        }
        if (raw.length < NONCE_BYTES + TAG_BITS / 8) {
            throw new UnsealException("the sealed credential is too short");
        }
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, opener, new GCMParameterSpec(TAG_BITS, raw, 0, NONCE_BYTES));
            cipher.updateAAD(binding.associatedData());
            return decode(cipher.doFinal(raw, NONCE_BYTES, raw.length - NONCE_BYTES));
        } catch (AEADBadTagException e) {
            throw new UnsealException("the sealed credential was altered or belongs to another row");
        } catch (GeneralSecurityException e) {
            throw new UnsealException(
                    "the sealed credential cannot be opened: " + e.getClass().getSimpleName());
        }
    }

    /** The key id a sealed value names, or null when it is not of this format (for rotation and diagnosis). */
    public static String keyIdOf(String sealed) {
        String[] parts = sealed == null ? new String[0] : sealed.split("\\.", 3);
        return parts.length == 3 && VERSION.equals(parts[0]) ? parts[1] : null;
    }

    private static byte[] encode(Credentials c) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            for (String field : new String[] {c.adminUser(), c.adminPassword(), c.user(), c.password(), c.database()}) {
                out.writeBoolean(field != null);
                if (field != null) {
                    byte[] utf8 = field.getBytes(StandardCharsets.UTF_8);
                    out.writeInt(utf8.length);
                    out.write(utf8);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    private static Credentials decode(byte[] plain) throws UnsealException {
        String[] f = new String[5];
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(plain))) {
            for (int i = 0; i < f.length; i++) {
                if (in.readBoolean()) {
                    byte[] utf8 = new byte[in.readInt()];
                    in.readFully(utf8);
                    f[i] = new String(utf8, StandardCharsets.UTF_8);
                }
            }
        } catch (IOException | NegativeArraySizeException e) {
            throw new UnsealException("the sealed credential has a malformed body");
        }
        return new Credentials(f[0], f[1], f[2], f[3], f[4]);
    }
}
