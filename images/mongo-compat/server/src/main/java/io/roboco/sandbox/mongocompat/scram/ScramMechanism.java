package io.roboco.sandbox.mongocompat.scram;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The two SCRAM mechanisms MongoDB speaks, with the JDK algorithm names behind them and the way
 * MongoDB turns a user's password into the SCRAM password (RFC 5802 section 2.2 "Hi(Normalize(password))"):
 *
 * <ul>
 *   <li>{@code SCRAM-SHA-1}: the password is MongoDB's legacy digest {@code hex(MD5(user + ":mongo:" + password))};
 *       10,000 iterations by default (mongod's {@code scramIterationCount}).</li>
 *   <li>{@code SCRAM-SHA-256} (RFC 7677): the password is SASLprep'd ({@link SaslPrep}); 15,000 iterations by
 *       default ({@code scramSHA256IterationCount}).</li>
 * </ul>
 */
public enum ScramMechanism {
    SCRAM_SHA_1("SCRAM-SHA-1", "SHA-1", "HmacSHA1", "PBKDF2WithHmacSHA1", 10_000, 16),
    SCRAM_SHA_256("SCRAM-SHA-256", "SHA-256", "HmacSHA256", "PBKDF2WithHmacSHA256", 15_000, 28);

    private final String saslName;
    private final String digest;
    private final String hmac;
    private final String pbkdf2;
    private final int defaultIterations;
    private final int saltBytes;

    ScramMechanism(String saslName, String digest, String hmac, String pbkdf2, int defaultIterations, int saltBytes) {
        this.saslName = saslName;
        this.digest = digest;
        this.hmac = hmac;
        this.pbkdf2 = pbkdf2;
        this.defaultIterations = defaultIterations;
        this.saltBytes = saltBytes;
    }

    /** The name on the wire, e.g. {@code SCRAM-SHA-256}. */
    public String saslName() {
        return saslName;
    }

    public String digestAlgorithm() {
        return digest;
    }

    public String hmacAlgorithm() {
        return hmac;
    }

    public String pbkdf2Algorithm() {
        return pbkdf2;
    }

    public int defaultIterations() {
        return defaultIterations;
    }

    public int saltBytes() {
        return saltBytes;
    }

    /** The mechanism with wire name {@code name} (exact, as mongod compares it), if it is one of ours. */
    public static Optional<ScramMechanism> bySaslName(String name) {
        for (ScramMechanism m : values()) {
            if (m.saslName.equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    /** What MongoDB feeds to PBKDF2 for {@code user}'s {@code password} under this mechanism. */
    public String mongoPassword(String user, String password) {
        return switch (this) {
            case SCRAM_SHA_1 -> legacyDigest(user, password);
            case SCRAM_SHA_256 -> SaslPrep.prepare(password);
        };
    }

    /** {@code hex(MD5(user + ":mongo:" + password))}: MongoDB's pre-SCRAM password digest, still the SCRAM-SHA-1 input. */
    static String legacyDigest(String user, String password) {
        try {
            byte[] md5 = MessageDigest.getInstance("MD5").digest((user + ":mongo:" + password).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md5);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no MD5", e);
        }
    }
}
