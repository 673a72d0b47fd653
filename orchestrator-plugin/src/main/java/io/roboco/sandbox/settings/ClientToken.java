package io.roboco.sandbox.settings;

import java.time.Instant;
import java.util.Objects;

/**
 * An operator-side owner's client token (a CI job's, {@code job:<name>}) as the store keeps it: the SHA-256 digest,
 * never the token. A client token reaches only its owner's sandboxes (create, list, show, extend, delete).
 */
public record ClientToken(String owner, String digest, Instant created) {
    public ClientToken {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(digest, "digest");
        Objects.requireNonNull(created, "created");
    }
}
