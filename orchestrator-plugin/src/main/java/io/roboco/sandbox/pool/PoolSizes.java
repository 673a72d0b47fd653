package io.roboco.sandbox.pool;

import java.util.Map;
import java.util.TreeMap;

/**
 * How many ready containers the warm pool keeps per engine, and per engine major: key {@code postgres} is the
 * engine's configured default image, {@code postgres:17} the image of major 17 (a project with
 * {@code sandbox_versions {"postgres":"17"}} claims from it). Engines not named keep none; all zero (the
 * production default) means no pool at all.
 *
 * <p>{@code seeded} is how many ready containers a <em>seeded</em> pool keeps: one such pool per project with a seed
 * (and per image it runs), made the first time one of its sandboxes is asked for (see {@link WarmPool}); 0 (the
 * default) means a seeded project's sandboxes always start cold and are seeded at request time.
 */
public record PoolSizes(Map<String, Integer> sizes, int seeded) {
    /** Upper bound per key: each idle container holds up to the sandbox memory cap. */
    public static final int MAX_PER_ENGINE = 16;

    /** Sizes per engine key, no seeded pools. */
    public PoolSizes(Map<String, Integer> sizes) {
        this(sizes, 0);
    }

    public PoolSizes {
        if (seeded < 0 || seeded > MAX_PER_ENGINE) {
            throw new IllegalArgumentException("seeded warm pool size must be 0-" + MAX_PER_ENGINE + ", was " + seeded);
        }
        sizes = Map.copyOf(new TreeMap<>(sizes));
        sizes.forEach((key, size) -> {
            if (size == null || size < 0 || size > MAX_PER_ENGINE) {
                throw new IllegalArgumentException(
                        "warm pool size for " + key + " must be 0-" + MAX_PER_ENGINE + ", was " + size);
            }
        });
    }

    public static PoolSizes none() {
        return new PoolSizes(Map.of());
    }

    /** The size for a key: {@code engine} or {@code engine:major}. */
    public int sizeFor(String key) {
        return sizes.getOrDefault(key, 0);
    }

    public boolean enabled() {
        return seeded > 0 || sizes.values().stream().anyMatch(size -> size > 0);
    }

    /** The same sizes, with {@code next} ready containers per seeded pool. */
    public PoolSizes withSeeded(int next) {
        return new PoolSizes(sizes, next);
    }

    /** The engine name of a key ({@code postgres:17} → {@code postgres}). */
    public static String engineOf(String key) {
        int colon = key.indexOf(':');
        return colon < 0 ? key : key.substring(0, colon);
    }

    /** The major of a key ({@code postgres:17} → {@code 17}; {@code postgres} → empty: the default image). */
    public static String majorOf(String key) {
        int colon = key.indexOf(':');
        return colon < 0 ? "" : key.substring(colon + 1);
    }
}
