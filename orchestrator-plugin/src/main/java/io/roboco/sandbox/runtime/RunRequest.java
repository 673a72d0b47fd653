package io.roboco.sandbox.runtime;

import io.roboco.sandbox.engine.ContainerSpec;
import java.util.ArrayList;
import java.util.List;
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
 * @param volumes       named volumes (a template's unpacked copy, read-only in a sandbox); empty for almost every container,
 *                      and refused by a runtime that does not {@linkplain ContainerRuntime#mountsVolumes() mount volumes}
 */
public record RunRequest(
        String name,
        ContainerSpec spec,
        Map<String, String> labels,
        Limits limits,
        NetworkMode network,
        Set<String> capabilities,
        List<VolumeMount> volumes) {
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
        volumes = List.copyOf(volumes);
    }

    /** A request that mounts no volume. */
    public RunRequest(
            String name,
            ContainerSpec spec,
            Map<String, String> labels,
            Limits limits,
            NetworkMode network,
            Set<String> capabilities) {
        this(name, spec, labels, limits, network, capabilities, List.of());
    }

    /** This request with {@code more} volumes mounted. */
    public RunRequest withVolumes(List<VolumeMount> more) {
        List<VolumeMount> all = new ArrayList<>(volumes);
        all.addAll(more);
        return new RunRequest(name, spec, labels, limits, network, capabilities, all);
    }
}
