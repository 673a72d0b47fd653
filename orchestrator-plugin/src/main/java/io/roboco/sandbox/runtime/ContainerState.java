package io.roboco.sandbox.runtime;

import java.util.Map;

/**
 * A container as the runtime sees it.
 *
 * @param createdEpochSeconds creation time reported by the runtime
 * @param exitCode            exit code when not running, else null
 * @param oomKilled           whether the kernel killed it for memory
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
        long createdEpochSeconds) {
    public ContainerState {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
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
