package io.roboco.sandbox.settings;

import io.roboco.sandbox.runtime.Limits;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One sandbox container as the store keeps it for re-adoption after a restart: where it answers, what runs in it,
 * and its credentials sealed by the plugin ({@code sealed}: AES-256-GCM text, see {@code secrets.CredentialCipher},
 * bound to this row's sandbox id, owner and container id). The store never sees a plaintext credential or the key.
 *
 * @param sandboxId the sandbox record's id ({@code sbx_…}), or {@link #POOL} for an idle warm-pool container
 * @param owner     the record's owner (an agent's slug for a verb set); for a pool container its pool key
 * @param instance  the server instance whose container it is ({@code roboco.sandbox.instance})
 * @param host      where the service answers ({@code 127.0.0.1} in host mode, the container name on a network)
 * @param limits    the caps the container was started with; null when not known
 * @param fromPool  the container was claimed from the warm pool (its labels still say pool; this row says whose it is)
 */
public record SealedContainer(
        String sandboxId,
        String containerId,
        String owner,
        String instance,
        String service,
        String containerName,
        String image,
        String major,
        String host,
        int port,
        List<String> features,
        Limits limits,
        boolean fromPool,
        Instant created,
        String sealed) {
    /** The sandbox id of an idle warm-pool container's row. */
    public static final String POOL = "pool";

    public SealedContainer {
        Objects.requireNonNull(sandboxId, "sandboxId");
        Objects.requireNonNull(containerId, "containerId");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(created, "created");
        Objects.requireNonNull(sealed, "sealed");
        containerName = containerName == null ? "" : containerName;
        image = image == null ? "" : image;
        major = major == null ? "" : major;
        features = features == null ? List.of() : List.copyOf(features);
    }

    public boolean pooled() {
        return POOL.equals(sandboxId);
    }

    public SealedContainer withSealed(String next) {
        return new SealedContainer(
                sandboxId,
                containerId,
                owner,
                instance,
                service,
                containerName,
                image,
                major,
                host,
                port,
                features,
                limits,
                fromPool,
                created,
                next);
    }

    /** Never prints the sealed value (it is not a secret without the key, but it has no business in a log). */
    @Override
    public String toString() {
        return "SealedContainer[" + sandboxId + " " + service + " " + containerName + " (" + containerId + ") of "
                + owner + "]";
    }
}
