package io.roboco.sandbox.server.config;

import io.roboco.sandbox.request.DurationText;
import java.time.Duration;
import java.util.Map;

/**
 * The lifecycle settings: TTLs, quotas, capacity and audit retention, validated at start.
 *
 * @param ttlDefault     {@code ROBOCO_SANDBOX_TTL_DEFAULT} (4h): a new sandbox's TTL; a verb set's expiry slides to it on use
 * @param ttlMax         {@code ROBOCO_SANDBOX_TTL_MAX} (24h): no sandbox lives longer, counted from its creation
 * @param maxPerOwner    {@code ROBOCO_SANDBOX_MAX_PER_OWNER} (3): live sandboxes per owner
 * @param maxContainers  {@code ROBOCO_SANDBOX_MAX_CONTAINERS}: live sandbox containers on this server (pool included);
 *                       null to derive it from the Docker host's memory at start
 * @param auditRetention {@code ROBOCO_SANDBOX_AUDIT_RETENTION} (30d): audit records (and deleted sandbox records)
 *                       older than this are pruned by the janitor
 * @param starts         admission at the container-start seam under a burst ({@link StartQueueSettings})
 */
public record LifecycleConfig(
        Duration ttlDefault,
        Duration ttlMax,
        int maxPerOwner,
        Integer maxContainers,
        Duration auditRetention,
        StartQueueSettings starts) {
    public static final int DEFAULT_MAX_PER_OWNER = 3;

    public LifecycleConfig {
        starts = starts == null ? StartQueueSettings.defaults() : starts;
        if (ttlDefault.compareTo(ttlMax) > 0) {
            throw new ConfigException("ROBOCO_SANDBOX_TTL_DEFAULT (" + DurationText.format(ttlDefault)
                    + ") must not exceed ROBOCO_SANDBOX_TTL_MAX ("
                    + DurationText.format(ttlMax) + ")");
        }
        if (maxPerOwner < 1 || maxPerOwner > 1000) {
            throw new ConfigException(
                    "ROBOCO_SANDBOX_MAX_PER_OWNER=" + maxPerOwner + " is out of range; use 1-1000 (default 3)");
        }
        if (maxContainers != null && (maxContainers < 1 || maxContainers > 100_000)) {
            throw new ConfigException("ROBOCO_SANDBOX_MAX_CONTAINERS=" + maxContainers
                    + " is out of range; use 1-100000, or unset it" + " to derive it from the Docker host's memory");
        }
    }

    public static LifecycleConfig defaults() {
        return new LifecycleConfig(
                Duration.ofHours(4), Duration.ofHours(24), DEFAULT_MAX_PER_OWNER, null, Duration.ofDays(30), null);
    }

    static LifecycleConfig fromEnv(Map<String, String> env) {
        LifecycleConfig d = defaults();
        return new LifecycleConfig(
                EnvValues.duration(env, "ROBOCO_SANDBOX_TTL_DEFAULT", d.ttlDefault()),
                EnvValues.duration(env, "ROBOCO_SANDBOX_TTL_MAX", d.ttlMax()),
                EnvValues.number(env, "ROBOCO_SANDBOX_MAX_PER_OWNER", d.maxPerOwner()),
                env.get("ROBOCO_SANDBOX_MAX_CONTAINERS") == null
                                || env.get("ROBOCO_SANDBOX_MAX_CONTAINERS").isBlank()
                        ? null
                        : EnvValues.number(env, "ROBOCO_SANDBOX_MAX_CONTAINERS", 0),
                EnvValues.duration(env, "ROBOCO_SANDBOX_AUDIT_RETENTION", d.auditRetention()),
                StartQueueSettings.fromEnv(env));
    }

    public LifecycleConfig withTtls(Duration newDefault, Duration newMax) {
        return new LifecycleConfig(newDefault, newMax, maxPerOwner, maxContainers, auditRetention, starts);
    }

    public LifecycleConfig withMaxPerOwner(int max) {
        return new LifecycleConfig(ttlDefault, ttlMax, max, maxContainers, auditRetention, starts);
    }

    public LifecycleConfig withMaxContainers(Integer max) {
        return new LifecycleConfig(ttlDefault, ttlMax, maxPerOwner, max, auditRetention, starts);
    }

    public LifecycleConfig withAuditRetention(Duration retention) {
        return new LifecycleConfig(ttlDefault, ttlMax, maxPerOwner, maxContainers, retention, starts);
    }

    public LifecycleConfig withStarts(StartQueueSettings newStarts) {
        return new LifecycleConfig(ttlDefault, ttlMax, maxPerOwner, maxContainers, auditRetention, newStarts);
    }
}
