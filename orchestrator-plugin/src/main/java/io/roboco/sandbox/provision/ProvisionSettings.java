package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How sandboxes are started, validated once and then read-only.
 *
 * @param instanceId  this plugin instance's stable id (label {@code roboco.sandbox.instance})
 * @param images      image per engine name; an engine not named here uses its production default
 * @param network     host mode (127.0.0.1, free port) or a named Docker network
 * @param limits      memory / CPU / pids / tmpfs caps (default 512 MB, 1 CPU)
 * @param readyTimeout bound on waiting for one service to become ready (default 30 s)
 * @param pollGap     gap between readiness probes (default 25 ms)
 * @param concurrentStarts containers started and becoming ready at once; more wait their turn before they start
 *                    (default twice the cores, at least 4). On a 2-core machine 20 Postgres containers started
 *                    together all share the CPU and all finish last; admitted a few at a time, the first are
 *                    ready in a second and the storm of readiness probes does not starve the daemon.
 */
public record ProvisionSettings(String instanceId, Map<String, String> images, NetworkMode network, Limits limits,
                                Duration readyTimeout, Duration pollGap, int concurrentStarts) {
    public ProvisionSettings {
        Objects.requireNonNull(instanceId, "instanceId");
        if (!instanceId.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")) {
            throw new IllegalArgumentException("instance id '" + instanceId + "' must be 1-64 letters, digits, '.', '_' or '-'");
        }
        images = Map.copyOf(images);
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(limits, "limits");
        if (readyTimeout.isNegative() || readyTimeout.isZero()) {
            throw new IllegalArgumentException("readiness timeout must be positive, was " + readyTimeout);
        }
        if (pollGap.isNegative() || pollGap.compareTo(readyTimeout) > 0) {
            throw new IllegalArgumentException("readiness poll gap must be between 0 and the timeout, was " + pollGap);
        }
        if (concurrentStarts < 1) {
            throw new IllegalArgumentException("concurrent starts must be at least 1, was " + concurrentStarts);
        }
    }

    public static ProvisionSettings defaults(String instanceId) {
        return new ProvisionSettings(instanceId, Map.of(), NetworkMode.host(), Limits.sandboxDefaults(),
                Duration.ofSeconds(30), Duration.ofMillis(25), Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));
    }

    public String imageFor(Engine engine) {
        return images.getOrDefault(engine.name(), engine.defaultImage());
    }

    public ProvisionSettings withImages(Map<String, String> newImages) {
        return new ProvisionSettings(instanceId, newImages, network, limits, readyTimeout, pollGap, concurrentStarts);
    }

    public ProvisionSettings withNetwork(NetworkMode newNetwork) {
        return new ProvisionSettings(instanceId, images, newNetwork, limits, readyTimeout, pollGap, concurrentStarts);
    }

    public ProvisionSettings withConcurrentStarts(int starts) {
        return new ProvisionSettings(instanceId, images, network, limits, readyTimeout, pollGap, starts);
    }

    public ProvisionSettings withReadyTimeout(Duration timeout) {
        return new ProvisionSettings(instanceId, images, network, limits, timeout, pollGap, concurrentStarts);
    }
}
