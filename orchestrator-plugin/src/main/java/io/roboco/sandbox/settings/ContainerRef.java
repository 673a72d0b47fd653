package io.roboco.sandbox.settings;

import java.util.List;
import java.util.Objects;

/**
 * One container behind a sandbox record: which service it serves and how to find it. Never a
 * credential, host port or URL.
 *
 * @param fromPool the container was claimed from the warm pool: its Docker labels still say pool (labels are fixed at
 *                 creation), so this record, not the labels, says whose it is
 * @param major    the engine major its image runs (e.g. {@code 17}); empty when the image does not say (or the record is
 *                 older than this field)
 * @param seed     how the seed it started with reads ({@code sql (120 bytes)}, {@code clone of $SHOP_DB_URL …}); empty for
 *                 none (or not known); never a secret
 */
public record ContainerRef(
        String service,
        String containerId,
        String containerName,
        String image,
        List<String> features,
        boolean fromPool,
        String major,
        String seed) {
    /** A container started for its sandbox (not claimed from the pool). */
    public ContainerRef(String service, String containerId, String containerName, String image, List<String> features) {
        this(service, containerId, containerName, image, features, false);
    }

    /** A container whose major and seed are not recorded. */
    public ContainerRef(
            String service,
            String containerId,
            String containerName,
            String image,
            List<String> features,
            boolean fromPool) {
        this(service, containerId, containerName, image, features, fromPool, "", "");
    }

    public ContainerRef {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(containerId, "containerId");
        containerName = containerName == null ? "" : containerName;
        image = image == null ? "" : image;
        features = features == null ? List.of() : List.copyOf(features);
        major = major == null ? "" : major;
        seed = seed == null ? "" : seed;
    }
}
