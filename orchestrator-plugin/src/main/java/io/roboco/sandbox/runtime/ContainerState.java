package io.roboco.sandbox.runtime;

import java.util.Map;
import java.util.Set;

/**
 * A container as the runtime sees it.
 *
 * @param createdEpochSeconds creation time reported by the runtime
 * @param exitCode            exit code when not running, else null
 * @param oomKilled           whether the kernel killed it for memory
 * @param networks            names of the networks it is attached to (none in host mode)
 */
public record ContainerState(
        String id,
        String name,
        String image,
        boolean running,
        String status,
        Integer exitCode,
        boolean oomKilled,
        Map<String, String> labels,
        long createdEpochSeconds,
        Set<String> networks) {
    public ContainerState {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        networks = networks == null ? Set.of() : Set.copyOf(networks);
    }

    /** A container whose networks are not known (none listed). */
    public ContainerState(
            String id,
            String name,
            String image,
            boolean running,
            String status,
            Integer exitCode,
            boolean oomKilled,
            Map<String, String> labels,
            long createdEpochSeconds) {
        this(id, name, image, running, status, exitCode, oomKilled, labels, createdEpochSeconds, Set.of());
    }

    /** "exited with code 1", "OOM-killed", "running". For failure messages. */
    public String describe() {
        if (running) {
            return "running";
        }
        if (oomKilled) {
            return "OOM-killed (exit code " + exitCode + ")";
        }
        return "exited with code " + exitCode;
    }
}
