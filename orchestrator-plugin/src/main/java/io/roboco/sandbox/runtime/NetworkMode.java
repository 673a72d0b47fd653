package io.roboco.sandbox.runtime;

/**
 * Where a sandbox's port is reachable. {@link Host}: the service binds 127.0.0.1 on a free port of
 * the host (tests, local demo). {@link Named}: the container joins a Docker network shared with the
 * agents' containers and is reached by container name (production).
 */
public sealed interface NetworkMode {
    record Host() implements NetworkMode {}

    record Named(String network) implements NetworkMode {}

    static NetworkMode host() {
        return new Host();
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
            return named(value.substring("network:".length()));
        }
        throw new IllegalArgumentException(
                "network mode '" + value + "' not understood; use 'host' or 'network:<docker network name>'");
    }
}
