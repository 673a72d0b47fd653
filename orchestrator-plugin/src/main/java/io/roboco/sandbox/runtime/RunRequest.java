package io.roboco.sandbox.runtime;

import io.roboco.sandbox.engine.ContainerSpec;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Everything the runtime needs to start one sandbox container.
 *
 * @param name          container name (unique; also its host name on a named network)
 * @param spec          the engine's container description
 * @param labels        ownership labels ({@code roboco.sandbox=1}, agent, service, project, instance, created)
 * @param limits        memory, CPU and pids caps
 * @param network       host mode or a named network
 * @param capabilities  Linux capabilities to keep; all others are dropped
 */
public record RunRequest(
        String name,
        ContainerSpec spec,
        Map<String, String> labels,
        Limits limits,
        NetworkMode network,
        Set<String> capabilities) {
    /** What the official images' entrypoints need to chown the data dir and drop to their service user. */
    public static final Set<String> ENTRYPOINT_CAPABILITIES =
            Set.of("CHOWN", "SETUID", "SETGID", "FOWNER", "DAC_OVERRIDE");

    public RunRequest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(spec, "spec");
        labels = Map.copyOf(labels);
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(network, "network");
        capabilities = Set.copyOf(capabilities);
    }
}
