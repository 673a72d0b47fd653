package io.roboco.sandbox.runtime;

import java.util.Objects;
import java.util.Optional;

/**
 * Where a sandbox's port is reachable. {@link Host}: the service binds 127.0.0.1 on a free port of the host (tests, local
 * demo). {@link Named}: network mode (production), configured as {@code network:<name>}; each sandbox container is then
 * started {@link Isolated}: on its owner's own network, where the agent reaches it by container name, and on a back network
 * where the plugin reaches it through a port published on the Docker host's 127.0.0.1.
 */
public sealed interface NetworkMode {
    record Host() implements NetworkMode {}

    /**
     * Network mode: {@code network} names the Docker network the agents' containers share, and is the prefix of the
     * networks made for sandboxes; {@code agentContainer} (null: none) is the name of an agent's container with
     * {@value #SLUG} for its slug, which the plugin attaches to the agent's own network.
     */
    record Named(String network, String agentContainer) implements NetworkMode {
        public Named {
            Objects.requireNonNull(network, "network");
            if (agentContainer != null && !agentContainer.contains(SLUG)) {
                throw new IllegalArgumentException(
                        "agent container name '" + agentContainer + "' must contain " + SLUG);
            }
        }

        public Named(String network) {
            this(network, null);
        }

        /** The container of {@code owner} to attach to its network: empty for a CI job ({@code job:…}) or without a pattern. */
        public Optional<String> agentContainer(String owner) {
            if (agentContainer == null || owner.startsWith("job:")) {
                return Optional.empty();
            }
            return Optional.of(agentContainer.replace(SLUG, owner));
        }

        public Named withAgentContainer(String pattern) {
            return new Named(network, pattern);
        }
    }

    /**
     * One sandbox container in network mode: created on {@code back} (inter-container traffic off; no agent on it) with its
     * port published on the Docker host's 127.0.0.1, the plugin's way in ({@link StartedContainer#publishedPort()}), and
     * attached to {@code owner} (null: none yet), its owner's internal network, before it starts.
     */
    record Isolated(String back, String owner) implements NetworkMode {
        public Isolated {
            Objects.requireNonNull(back, "back");
        }
    }

    /**
     * Kubernetes: each sandbox in a pod of its own, its service on its own port on every address of the pod, reached by the
     * plugin and the agent alike at the pod's address ({@link StartedContainer#address()}). Who may reach it is the pod's
     * NetworkPolicy, which the runtime makes. Chosen with the runtime, never configured as a network mode.
     */
    record Pods() implements NetworkMode {}

    /** Where {@link Named#agentContainer()} puts an agent's slug. */
    String SLUG = "{slug}";

    static NetworkMode host() {
        return new Host();
    }

    static NetworkMode pods() {
        return new Pods();
    }

    static NetworkMode named(String network) {
        return new Named(network);
    }

    /** Parses configuration: {@code host} or {@code network:<name>}. */
    static NetworkMode parse(String value) {
        if (value == null || value.isBlank() || value.equals("host")) {
            return host();
        }
        if (value.startsWith("network:") && value.length() > "network:".length()) {
            String name = value.substring("network:".length());
            if (!name.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")) {
                throw new IllegalArgumentException(
                        "network name '" + name + "' must be 1-64 letters, digits, '.', '_' or '-'");
            }
            return named(name);
        }
        throw new IllegalArgumentException(
                "network mode '" + value + "' not understood; use 'host' or 'network:<docker network name>'");
    }
}
