package io.roboco.sandbox.lifecycle;

import io.roboco.sandbox.settings.Project;
import java.time.Duration;
import java.util.Objects;

/**
 * The server's TTLs and how a project narrows them. A project may shorten both, never lengthen the
 * server's max: resolved max = min(project max, server max); resolved default = min(project default or
 * server default, resolved max).
 *
 * @param ttlDefault {@code ROBOCO_SANDBOX_TTL_DEFAULT}: how long a new sandbox lives, and what a verb set's expiry slides to
 * @param ttlMax     {@code ROBOCO_SANDBOX_TTL_MAX}: the longest any sandbox lives, counted from its creation
 */
public record Lifetimes(Duration ttlDefault, Duration ttlMax) {
    public static final Duration DEFAULT_TTL = Duration.ofHours(4);
    public static final Duration DEFAULT_MAX = Duration.ofHours(24);

    public Lifetimes {
        Objects.requireNonNull(ttlDefault, "ttlDefault");
        Objects.requireNonNull(ttlMax, "ttlMax");
        if (ttlDefault.isNegative() || ttlDefault.isZero() || ttlMax.isNegative() || ttlMax.isZero()) {
            throw new IllegalArgumentException("TTLs must be positive");
        }
        if (ttlDefault.compareTo(ttlMax) > 0) {
            throw new IllegalArgumentException("the default TTL " + ttlDefault + " exceeds the max " + ttlMax);
        }
    }

    public static Lifetimes defaults() {
        return new Lifetimes(DEFAULT_TTL, DEFAULT_MAX);
    }

    /** One project's resolved TTLs. */
    public record Resolved(Duration ttlDefault, Duration ttlMax) {}

    public Resolved resolve(Project project) {
        Duration max = project.ttlMax() == null || project.ttlMax().compareTo(ttlMax) > 0 ? ttlMax : project.ttlMax();
        Duration def = project.ttlDefault() == null ? ttlDefault : project.ttlDefault();
        return new Resolved(def.compareTo(max) > 0 ? max : def, max);
    }
}
