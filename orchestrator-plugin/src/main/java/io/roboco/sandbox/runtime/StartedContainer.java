package io.roboco.sandbox.runtime;

/**
 * A container the runtime created and started.
 *
 * @param publishedPort the port its service is published on at the Docker host's 127.0.0.1 ({@link NetworkMode.Isolated}
 *                      starts); 0 when none is
 * @param address       where its service answers on its own port ({@link NetworkMode.Pods}: the pod's IP); null when
 *                      the network mode says where instead
 */
public record StartedContainer(String id, String name, int publishedPort, String address) {
    /** A container with no published port. */
    public StartedContainer(String id, String name) {
        this(id, name, 0, null);
    }

    /** A container whose address the network mode says. */
    public StartedContainer(String id, String name, int publishedPort) {
        this(id, name, publishedPort, null);
    }
}
