package io.roboco.sandbox.settings;

import java.util.List;
import java.util.Objects;

/**
 * One container behind a sandbox record: which service it serves and how to find it. Never a
 * credential, host port or URL.
 *
 * @param fromPool the container was claimed from the warm pool: its Docker labels still say pool (labels are fixed at
 *                 creation), so this record, not the labels, says whose it is
 */
public record ContainerRef(String service, String containerId, String containerName, String image, List<String> features,
                           boolean fromPool) {
    /** A container started for its sandbox (not claimed from the pool). */
    public ContainerRef(String service, String containerId, String containerName, String image, List<String> features) {
        this(service, containerId, containerName, image, features, false);
    }

    public ContainerRef {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(containerId, "containerId");
        containerName = containerName == null ? "" : containerName;
        image = image == null ? "" : image;
        features = features == null ? List.of() : List.copyOf(features);
    }
}
