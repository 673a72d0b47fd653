package io.roboco.sandbox.runtime;

/**
 * A container the runtime created and started.
 *
 * @param publishedPort the port its service is published on at the Docker host's 127.0.0.1 ({@link NetworkMode.Isolated}
 *                      starts); 0 when none is
 */
public record StartedContainer(String id, String name, int publishedPort) {
    /** A container with no published port. */
    public StartedContainer(String id, String name) {
        this(id, name, 0);
    }
}
