package io.roboco.sandbox.engine;

/**
 * Inputs to {@link Engine#containerSpec}: the image to run, the sandbox's credentials, where the
 * service must listen ({@code bindHost} 127.0.0.1 and a free port in host-network mode; 0.0.0.0 and
 * the default port on a named network), and the container's memory limit in bytes ({@code memoryBytes},
 * 0 when the container has none), so a service with its own memory ceiling (Redis {@code maxmemory})
 * can set it below the limit and refuse instead of being OOM-killed.
 */
public record SpecRequest(String image, Credentials credentials, String bindHost, int port, long memoryBytes) {
    public SpecRequest {
        if (memoryBytes < 0) {
            throw new IllegalArgumentException("memory limit must be 0 (none) or positive, was " + memoryBytes);
        }
    }

    /** A request for a container without a memory limit. */
    public SpecRequest(String image, Credentials credentials, String bindHost, int port) {
        this(image, credentials, bindHost, port, 0);
    }
}
