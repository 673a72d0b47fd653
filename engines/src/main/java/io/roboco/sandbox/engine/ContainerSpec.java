package io.roboco.sandbox.engine;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A container as an engine describes it, in JDK types only. The runtime adds labels, limits,
 * security options and the network.
 *
 * @param image    image reference
 * @param env      environment (may hold the sandbox's own admin secret, never the agent's)
 * @param command  command (arguments to the image's entrypoint)
 * @param dataDir  path mounted as tmpfs for the service's data
 * @param port     port the service listens on
 */
public record ContainerSpec(String image, Map<String, String> env, List<String> command, String dataDir, int port) {
    public ContainerSpec {
        Objects.requireNonNull(image, "image");
        env = Map.copyOf(env);
        command = List.copyOf(command);
        Objects.requireNonNull(dataDir, "dataDir");
    }

    @Override
    public String toString() {
        // env may carry the admin secret: never print it.
        return "ContainerSpec[image=" + image + ", envKeys=" + env.keySet() + ", command=" + command + ", dataDir="
                + dataDir + ", port=" + port + "]";
    }
}
