package io.roboco.sandbox.provision;

import java.util.Objects;
import java.util.Set;

/**
 * The image one sandbox service runs: which major (empty when the image does not say), the image reference,
 * and the allowlisted features it offers (never wider than the engine's allowlist).
 *
 * @param requested the major the project asked for, or empty for the server's configured default image
 */
public record ImageChoice(String engine, String requested, String major, String image, Set<String> features) {
    public ImageChoice {
        Objects.requireNonNull(engine, "engine");
        requested = requested == null ? "" : requested;
        major = major == null ? "" : major;
        Objects.requireNonNull(image, "image");
        features = Set.copyOf(features);
    }

    /** How the choice reads in a message: {@code postgres 15 (image roboco-sandbox/postgres:15)}. */
    public String describe() {
        return engine + (major.isEmpty() ? "" : " " + major) + " (image " + image + ")";
    }

    /** Warm-pool key: containers are interchangeable exactly when engine and image are the same. */
    public String poolKey() {
        return engine + "@" + image;
    }
}
