package io.roboco.sandbox.settings;

import io.roboco.sandbox.provision.Seed;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A project's Sandbox settings. A project with no {@code services} has not opted in and sees no change.
 *
 * @param services   opted-in engine names, e.g. {@code [postgres, redis]}
 * @param extensions the standing feature set per engine, e.g. {@code {postgres=[pg_trgm]}}
 * @param versions   the major per engine, e.g. {@code {postgres=17}}; an engine not named runs the server's
 *                   configured image
 * @param ttlDefault {@code sandbox_ttl_default}: a new sandbox's TTL, or null for the server's
 * @param ttlMax     {@code sandbox_ttl_max}: the longest a sandbox may live from its creation, or null for the server's
 * @param maxLive    {@code sandbox_max_live}: live sandboxes the project may hold at once, or null for no limit
 * @param seeds      what a new sandbox starts with, per engine ({@code sandbox_seed}); none when absent
 * @param limits     memory / data tmpfs / CPU per engine, within the operator's maximums; an engine not named
 *                   (or a 0 in its limits) gets the server's defaults
 */
public record Project(
        String id,
        String name,
        List<String> services,
        Map<String, List<String>> extensions,
        Map<String, String> versions,
        Duration ttlDefault,
        Duration ttlMax,
        Integer maxLive,
        Map<String, Seed> seeds,
        Map<String, ServiceLimits> limits) {
    public Project {
        Objects.requireNonNull(id, "id");
        name = name == null || name.isBlank() ? id : name;
        services = services == null ? List.of() : List.copyOf(services);
        Map<String, List<String>> copy = new TreeMap<>();
        if (extensions != null) {
            extensions.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        }
        extensions = Map.copyOf(copy);
        versions = versions == null ? Map.of() : Map.copyOf(new TreeMap<>(versions));
        if (ttlDefault != null && (ttlDefault.isNegative() || ttlDefault.isZero())) {
            throw new IllegalArgumentException("sandbox_ttl_default must be positive, was " + ttlDefault);
        }
        if (ttlMax != null && (ttlMax.isNegative() || ttlMax.isZero())) {
            throw new IllegalArgumentException("sandbox_ttl_max must be positive, was " + ttlMax);
        }
        if (maxLive != null && maxLive < 1) {
            throw new IllegalArgumentException("sandbox_max_live must be at least 1, was " + maxLive);
        }
        seeds = seeds == null ? Map.of() : Map.copyOf(new TreeMap<>(seeds));
        Map<String, ServiceLimits> set = new TreeMap<>();
        if (limits != null) {
            limits.forEach((service, l) -> {
                if (!l.isDefault()) {
                    set.put(service, l);
                }
            });
        }
        limits = Map.copyOf(set);
    }

    /** A project with seeds, on the server's default limits. */
    public Project(
            String id,
            String name,
            List<String> services,
            Map<String, List<String>> extensions,
            Map<String, String> versions,
            Duration ttlDefault,
            Duration ttlMax,
            Integer maxLive,
            Map<String, Seed> seeds) {
        this(id, name, services, extensions, versions, ttlDefault, ttlMax, maxLive, seeds, Map.of());
    }

    /** A project without seeds, on the server's default limits. */
    public Project(
            String id,
            String name,
            List<String> services,
            Map<String, List<String>> extensions,
            Map<String, String> versions,
            Duration ttlDefault,
            Duration ttlMax,
            Integer maxLive) {
        this(id, name, services, extensions, versions, ttlDefault, ttlMax, maxLive, Map.of(), Map.of());
    }

    /** A project on the server's configured images and TTLs, with no project limit on live sandboxes. */
    public Project(String id, String name, List<String> services, Map<String, List<String>> extensions) {
        this(id, name, services, extensions, Map.of(), null, null, null, Map.of());
    }

    /** A project with majors picked, on the server's TTLs. */
    public Project(
            String id,
            String name,
            List<String> services,
            Map<String, List<String>> extensions,
            Map<String, String> versions) {
        this(id, name, services, extensions, versions, null, null, null, Map.of());
    }

    /** A project with majors and seeds, on the server's TTLs. */
    public Project(
            String id,
            String name,
            List<String> services,
            Map<String, List<String>> extensions,
            Map<String, String> versions,
            Map<String, Seed> seeds) {
        this(id, name, services, extensions, versions, null, null, null, seeds);
    }

    public boolean optedIn() {
        return !services.isEmpty();
    }

    public List<String> extensionsFor(String service) {
        return extensions.getOrDefault(service, List.of());
    }

    /** The major picked for {@code service}, or empty for the server's configured image. */
    public String versionFor(String service) {
        return versions.getOrDefault(service, "");
    }

    /** What the project sets for {@code service} ({@link ServiceLimits#DEFAULTS} when nothing). */
    public ServiceLimits limitsFor(String service) {
        return limits.getOrDefault(service, ServiceLimits.DEFAULTS);
    }

    public Project withVersions(Map<String, String> newVersions) {
        return new Project(id, name, services, extensions, newVersions, ttlDefault, ttlMax, maxLive, seeds, limits);
    }

    public Project withLifecycle(Duration newTtlDefault, Duration newTtlMax, Integer newMaxLive) {
        return new Project(
                id, name, services, extensions, versions, newTtlDefault, newTtlMax, newMaxLive, seeds, limits);
    }

    public Project withSeeds(Map<String, Seed> newSeeds) {
        return new Project(id, name, services, extensions, versions, ttlDefault, ttlMax, maxLive, newSeeds, limits);
    }

    /** The seed of {@code service}, or null for none. */
    public Seed seedFor(String service) {
        return seeds.get(service);
    }

    public Project withLimits(Map<String, ServiceLimits> newLimits) {
        return new Project(id, name, services, extensions, versions, ttlDefault, ttlMax, maxLive, seeds, newLimits);
    }
}
