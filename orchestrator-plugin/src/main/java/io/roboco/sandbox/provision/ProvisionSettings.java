package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.Printable;
import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.request.ProjectId;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * How sandboxes are started, validated once and then read-only.
 *
 * @param instanceId  this plugin instance's stable id (label {@code roboco.sandbox.instance})
 * @param images      image per engine name; an engine not named here uses its production default
 * @param majorImages image per engine name and major ({@code postgres -> 17 -> postgres:17-alpine}); a major not
 *                    named here uses the default image when that runs the same major, else the engine's production
 *                    image of that major
 * @param network     host mode (127.0.0.1, free port) or a named Docker network
 * @param limits      memory / CPU / pids / tmpfs caps of a sandbox whose project sets none (default 512 MB, 1 CPU,
 *                    256 MB data)
 * @param maxLimits   the most a project may set ({@code sandbox_limits}); default 2 GB memory, 1 GB data, 2 CPUs
 * @param readyTimeout bound on waiting for one service to become ready (default 30 s)
 * @param pollGap     gap between readiness probes (default 25 ms)
 * @param concurrentStarts containers started and becoming ready at once; more wait their turn before they start
 *                    (default the cores plus one, at least 3). On a 2-core machine 20 Postgres containers started
 *                    together all share the CPU and all finish last; admitted a few at a time, the first are
 *                    ready in a second and the storm of readiness probes does not starve the daemon.
 * @param startQueuePerOwner starts one owner (agent, named sandbox's owner, the warm pool) may have waiting for a turn
 *                    (default 8); one more is a retryable failure at once, so one owner cannot fill the queue
 * @param startQueueWait how long a start may wait for its turn (default 120 s); then a retryable failure naming its
 *                    position in the queue and an estimate of the wait left ({@link StartQueue})
 */
public record ProvisionSettings(
        String instanceId,
        Map<String, String> images,
        Map<String, Map<String, String>> majorImages,
        NetworkMode network,
        Limits limits,
        Limits maxLimits,
        Duration readyTimeout,
        Duration pollGap,
        int concurrentStarts,
        int startQueuePerOwner,
        Duration startQueueWait) {
    public ProvisionSettings {
        Objects.requireNonNull(instanceId, "instanceId");
        if (!ProjectId.SHAPE.matches(instanceId)) { // an instance id is written like a project id
            throw new IllegalArgumentException(
                    "instance id '" + instanceId + "' must be 1-64 letters, digits, '.', '_' or '-'");
        }
        images = Map.copyOf(images);
        Map<String, Map<String, String>> majors = new TreeMap<>();
        majorImages.forEach((engine, byMajor) -> majors.put(engine, Map.copyOf(byMajor)));
        majorImages = Map.copyOf(majors);
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(maxLimits, "maxLimits");
        if (!limits.within(maxLimits)) {
            throw new IllegalArgumentException("the default limits " + limits + " exceed the maximums " + maxLimits);
        }
        if (readyTimeout.isNegative() || readyTimeout.isZero()) {
            throw new IllegalArgumentException("readiness timeout must be positive, was " + readyTimeout);
        }
        if (pollGap.isNegative() || pollGap.compareTo(readyTimeout) > 0) {
            throw new IllegalArgumentException("readiness poll gap must be between 0 and the timeout, was " + pollGap);
        }
        if (concurrentStarts < 1) {
            throw new IllegalArgumentException("concurrent starts must be at least 1, was " + concurrentStarts);
        }
        if (startQueuePerOwner < 1) {
            throw new IllegalArgumentException(
                    "starts waiting per owner must be at least 1, was " + startQueuePerOwner);
        }
        Objects.requireNonNull(startQueueWait, "startQueueWait");
        if (startQueueWait.isNegative() || startQueueWait.isZero()) {
            throw new IllegalArgumentException("the start queue's wait must be positive, was " + startQueueWait);
        }
    }

    public static ProvisionSettings defaults(String instanceId) {
        return new ProvisionSettings(
                instanceId,
                Map.of(),
                Map.of(),
                NetworkMode.host(),
                Limits.sandboxDefaults(),
                Limits.operatorMaximums(),
                Duration.ofSeconds(30),
                Duration.ofMillis(25),
                defaultConcurrentStarts(),
                DEFAULT_START_QUEUE_PER_OWNER,
                DEFAULT_START_QUEUE_WAIT);
    }

    /** Starts one owner may have waiting by default. */
    public static final int DEFAULT_START_QUEUE_PER_OWNER = 8;
    /** How long a start waits for its turn by default. */
    public static final Duration DEFAULT_START_QUEUE_WAIT = Duration.ofSeconds(120);

    /** This host's cores plus one, at least 3. */
    public static int defaultConcurrentStarts() {
        return Math.max(3, Runtime.getRuntime().availableProcessors() + 1);
    }

    /** The server's configured default image of {@code engine}. */
    public String imageFor(Engine engine) {
        return images.getOrDefault(engine.name(), engine.defaultImage());
    }

    /**
     * The image for {@code engine} at {@code major} (null or empty: the configured default image), with the major it
     * runs and the allowlisted features it offers.
     *
     * @throws UnknownNameException when the engine has no such major; the message lists the known ones
     */
    public ImageChoice choose(Engine engine, String major) {
        String fallback = imageFor(engine);
        if (major == null || major.isEmpty()) {
            return new ImageChoice(
                    engine.name(), "", engine.majorOf(fallback).orElse(""), fallback, engine.imageFeatures(fallback));
        }
        if (!engine.majors().contains(major)) {
            throw new UnknownNameException(engine.name() + " has no major '" + Printable.of(major) + "'; known: "
                    + (engine.majors().isEmpty()
                            ? "none (the server's configured image is the only one)"
                            : String.join(", ", engine.majors())));
        }
        String image = majorImages.getOrDefault(engine.name(), Map.of()).get(major);
        if (image == null) {
            image = major.equals(engine.majorOf(fallback).orElse(null)) ? fallback : engine.defaultImage(major);
        }
        return new ImageChoice(engine.name(), major, major, image, engine.imageFeatures(image));
    }

    /** Every major of {@code engine} whose image offers {@code feature}, oldest first. */
    public List<String> majorsOffering(Engine engine, String feature) {
        List<String> offering = new ArrayList<>();
        for (String major : engine.majors()) {
            if (choose(engine, major).features().contains(feature)) {
                offering.add(major);
            }
        }
        return offering;
    }

    public ProvisionSettings withImages(Map<String, String> newImages) {
        return new ProvisionSettings(
                instanceId,
                newImages,
                majorImages,
                network,
                limits,
                maxLimits,
                readyTimeout,
                pollGap,
                concurrentStarts,
                startQueuePerOwner,
                startQueueWait);
    }

    /** Images per engine and major, e.g. {@code {postgres={17=roboco-sandbox/postgres:17}}}. */
    public ProvisionSettings withMajorImages(Map<String, Map<String, String>> newMajorImages) {
        return new ProvisionSettings(
                instanceId,
                images,
                newMajorImages,
                network,
                limits,
                maxLimits,
                readyTimeout,
                pollGap,
                concurrentStarts,
                startQueuePerOwner,
                startQueueWait);
    }

    public ProvisionSettings withNetwork(NetworkMode newNetwork) {
        return new ProvisionSettings(
                instanceId,
                images,
                majorImages,
                newNetwork,
                limits,
                maxLimits,
                readyTimeout,
                pollGap,
                concurrentStarts,
                startQueuePerOwner,
                startQueueWait);
    }

    public ProvisionSettings withConcurrentStarts(int starts) {
        return new ProvisionSettings(
                instanceId,
                images,
                majorImages,
                network,
                limits,
                maxLimits,
                readyTimeout,
                pollGap,
                starts,
                startQueuePerOwner,
                startQueueWait);
    }

    /** The operator's maximums a project's {@code sandbox_limits} may reach (default {@link Limits#operatorMaximums()}). */
    public ProvisionSettings withMaxLimits(Limits maximums) {
        return new ProvisionSettings(
                instanceId,
                images,
                majorImages,
                network,
                limits,
                maximums,
                readyTimeout,
                pollGap,
                concurrentStarts,
                startQueuePerOwner,
                startQueueWait);
    }

    public ProvisionSettings withReadyTimeout(Duration timeout) {
        return new ProvisionSettings(
                instanceId,
                images,
                majorImages,
                network,
                limits,
                maxLimits,
                timeout,
                pollGap,
                concurrentStarts,
                startQueuePerOwner,
                startQueueWait);
    }

    /** The start queue's bounds: starts one owner may have waiting, and how long one may wait ({@link StartQueue}). */
    public ProvisionSettings withStartQueue(int perOwner, Duration wait) {
        return new ProvisionSettings(
                instanceId,
                images,
                majorImages,
                network,
                limits,
                maxLimits,
                readyTimeout,
                pollGap,
                concurrentStarts,
                perOwner,
                wait);
    }
}
