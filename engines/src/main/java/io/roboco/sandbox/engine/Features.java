package io.roboco.sandbox.engine;

import java.util.TreeSet;

/** The allowlist check every engine runs before it activates anything. */
public final class Features {
    private Features() {
    }

    /**
     * Refuses {@code feature} unless it is exactly on {@code engine}'s allowlist (no case folding or
     * normalisation); the message names the allowlist.
     */
    public static String require(Engine engine, String feature) {
        if (feature == null || !engine.features().contains(feature)) {
            String allowed = engine.features().isEmpty() ? "none" : String.join(", ", new TreeSet<>(engine.features()));
            throw new UnknownNameException(engine.name() + " feature '" + Printable.of(feature)
                    + "' is not allowed; allowed: " + allowed);
        }
        return feature;
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
