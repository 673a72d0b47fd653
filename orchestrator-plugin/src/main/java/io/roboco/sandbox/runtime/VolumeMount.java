package io.roboco.sandbox.runtime;

import java.util.Objects;

/**
 * A named volume of the runtime mounted into a container at {@code path} ({@link RunRequest#volumes()}): a template's
 * physical copy, unpacked once (read-write, by a short-lived helper), which a new sandbox mounts read-only and copies into
 * its own tmpfs data directory at start. Only a runtime that {@linkplain ContainerRuntime#mountsVolumes() mounts volumes}
 * accepts one.
 */
public record VolumeMount(String name, String path, boolean readOnly) {
    public VolumeMount {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(path, "path");
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("a volume's path must be absolute: " + path);
        }
    }
}
