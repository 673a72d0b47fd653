package io.roboco.sandbox.pool;

import java.util.Map;
import java.util.TreeMap;

/**
 * How many ready containers the warm pool keeps per engine name. Engines not named keep none; all zero
 * (the production default) means no pool at all.
 */
public record PoolSizes(Map<String, Integer> sizes) {
    /** Upper bound per engine: each idle container holds up to the sandbox memory cap. */
    public static final int MAX_PER_ENGINE = 16;

    public PoolSizes {
        sizes = Map.copyOf(new TreeMap<>(sizes));
        sizes.forEach((engine, size) -> {
            if (size == null || size < 0 || size > MAX_PER_ENGINE) {
                throw new IllegalArgumentException("warm pool size for " + engine + " must be 0-" + MAX_PER_ENGINE + ", was " + size);
            }
        });
    }

    public static PoolSizes none() {
        return new PoolSizes(Map.of());
    }

    public int sizeFor(String engine) {
        return sizes.getOrDefault(engine, 0);
    }

    public boolean enabled() {
        return sizes.values().stream().anyMatch(size -> size > 0);
    }
}
