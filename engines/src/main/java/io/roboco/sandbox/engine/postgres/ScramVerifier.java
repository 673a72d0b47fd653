package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.SecretSource;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * A PostgreSQL {@code SCRAM-SHA-256} password verifier computed client side (RFC 5802 / 7677), in the
 * form the server stores in {@code pg_authid.rolpassword}:
 * {@code SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>}. Sending it in place of the
 * password keeps the plaintext out of the server's statement text and logs.
 *
 * <p>SASLprep is skipped: it is the identity for the ASCII letters and digits that
 * {@link SecretSource#password()} produces, and anything else is refused.
 */
final class ScramVerifier {
    static final int ITERATIONS = 4096;
    private static final SecureRandom RANDOM = new SecureRandom();

    private ScramVerifier() {}

    static String of(String password) {
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        return of(password, salt, ITERATIONS);
    }

    static String of(String password, byte[] salt, int iterations) {
        if (!password.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new IllegalArgumentException(
                    "SCRAM verifier needs a printable-ASCII password (SASLprep not implemented)");
        }
        try {
            PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
            byte[] salted = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                    .generateSecret(spec)
                    .getEncoded();
            byte[] clientKey = hmac(salted, "Client Key");
            byte[] storedKey = MessageDigest.getInstance("SHA-256").digest(clientKey);
            byte[] serverKey = hmac(salted, "Server Key");
            Base64.Encoder b64 = Base64.getEncoder();
            return "SCRAM-SHA-256$" + iterations + ":" + b64.encodeToString(salt) + "$" + b64.encodeToString(storedKey)
                    + ":" + b64.encodeToString(serverKey);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("JDK lacks PBKDF2WithHmacSHA256 / HmacSHA256", e);
        }
    }

    private static byte[] hmac(byte[] key, String message) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(message.getBytes(StandardCharsets.US_ASCII));
    }
}
