package io.roboco.sandbox.engine;

import java.util.Optional;
import java.util.TreeSet;

/**
 * The allowlist check: the one place a feature name becomes an {@link AllowedFeature}. Comparison is exact: no
 * case folding, trimming or normalisation (a look-alike is a different name).
 */
public final class Features {
    private Features() {}

    /** {@code feature} as an allowed feature of {@code engine}, or empty when it is not exactly on the allowlist. */
    public static Optional<AllowedFeature> allow(Engine engine, String feature) {
        return feature != null && engine.features().contains(feature)
                ? Optional.of(new AllowedFeature(engine.name(), feature))
                : Optional.empty();
    }

    /** {@link #allow}, or an {@link UnknownNameException} whose message names the allowlist. */
    public static AllowedFeature require(Engine engine, String feature) {
        return allow(engine, feature)
                .orElseThrow(() -> new UnknownNameException(engine.name() + " feature '" + Printable.of(feature)
                        + "' is not allowed; allowed: " + allowlist(engine)));
    }

    /** The allowlist as a message shows it: {@code citext, pg_trgm, ...}, or {@code none}. */
    public static String allowlist(Engine engine) {
        return engine.features().isEmpty() ? "none" : String.join(", ", new TreeSet<>(engine.features()));
    }

    /** The first line of {@code output} that mentions {@code word}, else its first line; for short details. */
    public static String line(String output, String word) {
        String first = null;
        for (String line : output.split("\n")) {
            String l = line.strip();
            if (l.isEmpty()) {
                continue;
            }
            if (first == null) {
                first = l;
            }
            if (l.contains(word)) {
                return l;
            }
        }
        return first == null ? "" : first;
    }
}
