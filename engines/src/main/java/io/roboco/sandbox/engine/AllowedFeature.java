package io.roboco.sandbox.engine;

import java.util.Objects;

/**
 * A feature name that is exactly on its engine's allowlist: the only kind {@link Engine#activate} takes, so an
 * engine never re-checks what it is asked to activate. Made only by {@link Features#allow} and
 * {@link Features#require}; compared and printed by its name.
 */
public final class AllowedFeature implements Comparable<AllowedFeature> {
    private final String engine;
    private final String name;

    AllowedFeature(String engine, String name) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.name = Objects.requireNonNull(name, "name");
    }

    /** The engine whose allowlist carries it, e.g. {@code postgres}. */
    public String engine() {
        return engine;
    }

    /** The feature as it is allowlisted, e.g. {@code pg_trgm}. */
    public String name() {
        return name;
    }

    @Override
    public int compareTo(AllowedFeature other) {
        int byEngine = engine.compareTo(other.engine);
        return byEngine != 0 ? byEngine : name.compareTo(other.name);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AllowedFeature other && engine.equals(other.engine) && name.equals(other.name);
    }

    @Override
    public int hashCode() {
        return engine.hashCode() * 31 + name.hashCode();
    }

    @Override
    public String toString() {
        return name;
    }
}
