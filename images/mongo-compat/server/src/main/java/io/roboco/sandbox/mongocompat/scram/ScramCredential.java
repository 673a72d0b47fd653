package io.roboco.sandbox.mongocompat.scram;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * What a server keeps of one user's password for one mechanism (RFC 5802 section 3): salt, iteration
 * count, {@code StoredKey = H(ClientKey)} and {@code ServerKey}. The password itself is not kept, and
 * neither is {@code SaltedPassword}. All hashing is the JDK's (PBKDF2, HMAC, message digests).
 */
public record ScramCredential(ScramMechanism mechanism, byte[] salt, int iterations, byte[] storedKey, byte[] serverKey) {
    private static final SecureRandom RANDOM = new SecureRandom();

    public ScramCredential {
        Objects.requireNonNull(mechanism, "mechanism");
        salt = salt.clone();
        storedKey = storedKey.clone();
        serverKey = serverKey.clone();
        if (iterations < 1) {
            throw new IllegalArgumentException("iteration count must be positive");
        }
    }

    /** A new credential for a MongoDB user: random salt, the mechanism's default iterations, MongoDB's password transform. */
    public static ScramCredential forMongoUser(ScramMechanism mechanism, String user, String password) {
        return forMongoUser(mechanism, user, password, mechanism.defaultIterations());
    }

    /** {@link #forMongoUser(ScramMechanism, String, String)} with {@code iterations} PBKDF2 iterations. */
    public static ScramCredential forMongoUser(ScramMechanism mechanism, String user, String password, int iterations) {
        byte[] salt = new byte[mechanism.saltBytes()];
        RANDOM.nextBytes(salt);
        return derive(mechanism, mechanism.mongoPassword(user, password), salt, iterations);
    }

    /** RFC 5802: from the already normalised SCRAM password, the salt and the iteration count. */
    public static ScramCredential derive(ScramMechanism mechanism, String scramPassword, byte[] salt, int iterations) {
        byte[] salted = saltedPassword(mechanism, scramPassword, salt, iterations);
        byte[] clientKey = hmac(mechanism, salted, "Client Key");
        byte[] storedKey = digest(mechanism, clientKey);
        byte[] serverKey = hmac(mechanism, salted, "Server Key");
        return new ScramCredential(mechanism, salt, iterations, storedKey, serverKey);
    }

    @Override
    public byte[] salt() {
        return salt.clone();
    }

    @Override
    public byte[] storedKey() {
        return storedKey.clone();
    }

    @Override
    public byte[] serverKey() {
        return serverKey.clone();
    }

    @Override
    public String toString() {
        return "ScramCredential[" + mechanism.saslName() + ", iterations=" + iterations + ", keys=<redacted>]";
    }

    // --- RFC 5802 primitives over the JDK's providers ---------------------------------------------

    /** {@code Hi(password, salt, i)} = PBKDF2 with the mechanism's HMAC, one block (the hash length). */
    static byte[] saltedPassword(ScramMechanism mechanism, String scramPassword, byte[] salt, int iterations) {
        char[] chars = scramPassword.toCharArray();
        PBEKeySpec spec = new PBEKeySpec(chars, salt, iterations, 8 * digestLength(mechanism));
        try {
            return SecretKeyFactory.getInstance(mechanism.pbkdf2Algorithm()).generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(mechanism.pbkdf2Algorithm() + " unavailable", e);
        } finally {
            spec.clearPassword();
            java.util.Arrays.fill(chars, '\0');
        }
    }

    static byte[] hmac(ScramMechanism mechanism, byte[] key, String text) {
        return hmac(mechanism, key, text.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] hmac(ScramMechanism mechanism, byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance(mechanism.hmacAlgorithm());
            mac.init(new SecretKeySpec(key, mechanism.hmacAlgorithm()));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(mechanism.hmacAlgorithm() + " unavailable", e);
        }
    }

    static byte[] digest(ScramMechanism mechanism, byte[] data) {
        try {
            return MessageDigest.getInstance(mechanism.digestAlgorithm()).digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(mechanism.digestAlgorithm() + " unavailable", e);
        }
    }

    static int digestLength(ScramMechanism mechanism) {
        try {
            return MessageDigest.getInstance(mechanism.digestAlgorithm()).getDigestLength();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(mechanism.digestAlgorithm() + " unavailable", e);
        }
    }

    static byte[] xor(byte[] a, byte[] b) {
        byte[] out = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = (byte) (a[i] ^ b[i]);
        }
        return out;
    }
}
