package io.roboco.sandbox.settings;

import java.util.List;
import java.util.Objects;

/**
 * One container behind a sandbox record: which service it serves and how to find it. Never a
 * credential, host port or URL.
 */
public record ContainerRef(String service, String containerId, String containerName, String image, List<String> features) {
    public ContainerRef {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(containerId, "containerId");
        containerName = containerName == null ? "" : containerName;
        image = image == null ? "" : image;
        features = features == null ? List.of() : List.copyOf(features);
    }
}
