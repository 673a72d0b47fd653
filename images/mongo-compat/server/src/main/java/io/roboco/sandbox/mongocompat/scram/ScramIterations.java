package io.roboco.sandbox.mongocompat.scram;

import java.util.Optional;

/**
 * How many PBKDF2 iterations a new credential gets per mechanism: mongod's {@code scramIterationCount} (SCRAM-SHA-1,
 * default 10,000, at least 5,000) and {@code scramSHA256IterationCount} (SCRAM-SHA-256, default 15,000, at least
 * 4,096), set with {@code --setParameter name=value}. Existing credentials keep the count they were made with, as in
 * mongod; a client derives its key with the count the server names in its first message.
 */
public record ScramIterations(int sha1, int sha256) {
    public static final ScramIterations DEFAULTS = new ScramIterations(10_000, 15_000);

    public static final String SHA1_PARAMETER = "scramIterationCount";
    public static final String SHA256_PARAMETER = "scramSHA256IterationCount";
    static final int SHA1_MINIMUM = 5_000;
    static final int SHA256_MINIMUM = 4_096;

    public ScramIterations {
        if (sha1 < SHA1_MINIMUM) {
            throw new IllegalArgumentException(SHA1_PARAMETER + " must be at least " + SHA1_MINIMUM + ", was " + sha1);
        }
        if (sha256 < SHA256_MINIMUM) {
            throw new IllegalArgumentException(
                    SHA256_PARAMETER + " must be at least " + SHA256_MINIMUM + ", was " + sha256);
        }
    }

    public int of(ScramMechanism mechanism) {
        return mechanism == ScramMechanism.SCRAM_SHA_1 ? sha1 : sha256;
    }

    /**
     * These counts with {@code parameter} ({@code name=value} of a {@code --setParameter}) applied when it names one of
     * them; empty when it names another parameter. A bad value throws {@link IllegalArgumentException}.
     */
    public Optional<ScramIterations> with(String parameter) {
        int eq = parameter.indexOf('=');
        if (eq < 0) {
            return Optional.empty();
        }
        String name = parameter.substring(0, eq);
        if (!name.equals(SHA1_PARAMETER) && !name.equals(SHA256_PARAMETER)) {
            return Optional.empty();
        }
        int value;
        try {
            value = Integer.parseInt(parameter.substring(eq + 1).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number, was '" + parameter.substring(eq + 1) + "'");
        }
        return Optional.of(
                name.equals(SHA1_PARAMETER) ? new ScramIterations(value, sha256) : new ScramIterations(sha1, value));
    }
}
