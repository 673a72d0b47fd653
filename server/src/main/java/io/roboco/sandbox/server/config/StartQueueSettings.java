package io.roboco.sandbox.server.config;

import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.request.DurationText;
import java.time.Duration;
import java.util.Map;

/**
 * Admission at the container-start seam under a burst ({@code provision.StartQueue}), validated at start.
 *
 * <ul>
 *   <li>{@code ROBOCO_SANDBOX_CONCURRENT_STARTS} (derived: the host's cores plus one, at least 3): containers starting and
 *       becoming ready at once; the rest wait in one queue, first come first served across owners;</li>
 *   <li>{@code ROBOCO_SANDBOX_START_QUEUE_PER_OWNER} ({@code 8}): starts one owner may have waiting; one more is a
 *       retryable {@code invalid_state} at once, so one owner cannot fill the queue;</li>
 *   <li>{@code ROBOCO_SANDBOX_START_QUEUE_WAIT} ({@code 120s}): how long a start may wait for its turn; then a retryable
 *       {@code invalid_state} with its position in the queue and an estimate of the wait left.</li>
 * </ul>
 *
 * @param concurrentStarts null to derive it from the host's cores
 */
public record StartQueueSettings(Integer concurrentStarts, int perOwner, Duration maxWait) {
    public StartQueueSettings {
        if (concurrentStarts != null && (concurrentStarts < 1 || concurrentStarts > 1000)) {
            throw new ConfigException("ROBOCO_SANDBOX_CONCURRENT_STARTS=" + concurrentStarts
                    + " is out of range; use 1-1000, or unset it to derive it from the host's cores (the cores plus"
                    + " one, at least 3)");
        }
        if (perOwner < 1 || perOwner > 1000) {
            throw new ConfigException("ROBOCO_SANDBOX_START_QUEUE_PER_OWNER=" + perOwner
                    + " is out of range; use 1-1000 (default " + ProvisionSettings.DEFAULT_START_QUEUE_PER_OWNER + ")");
        }
        if (maxWait == null || maxWait.isNegative() || maxWait.isZero()) {
            throw new ConfigException("ROBOCO_SANDBOX_START_QUEUE_WAIT must be a positive duration, e.g. "
                    + DurationText.format(ProvisionSettings.DEFAULT_START_QUEUE_WAIT));
        }
    }

    public static StartQueueSettings defaults() {
        return new StartQueueSettings(
                null, ProvisionSettings.DEFAULT_START_QUEUE_PER_OWNER, ProvisionSettings.DEFAULT_START_QUEUE_WAIT);
    }

    static StartQueueSettings fromEnv(Map<String, String> env) {
        StartQueueSettings d = defaults();
        String starts = EnvValues.value(env, "ROBOCO_SANDBOX_CONCURRENT_STARTS");
        return new StartQueueSettings(
                starts == null ? null : EnvValues.number(env, "ROBOCO_SANDBOX_CONCURRENT_STARTS", 0),
                EnvValues.number(env, "ROBOCO_SANDBOX_START_QUEUE_PER_OWNER", d.perOwner()),
                EnvValues.duration(env, "ROBOCO_SANDBOX_START_QUEUE_WAIT", d.maxWait()));
    }

    /** The turns at once this server runs with: the setting, or the host's cores plus one (at least 3). */
    public int effectiveConcurrentStarts() {
        return concurrentStarts != null ? concurrentStarts : ProvisionSettings.defaultConcurrentStarts();
    }
}
