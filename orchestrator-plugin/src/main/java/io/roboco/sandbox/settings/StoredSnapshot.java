package io.roboco.sandbox.settings;

import io.roboco.sandbox.engine.SchemaDigest;
import java.time.Instant;
import java.util.Objects;

/**
 * One named schema snapshot as the store keeps it: an explicit before-state of a sandbox's schema, taken when asked.
 *
 * @param sandbox the sandbox record's id ({@code sbx_…}); for a verb set without a record (an embedding that keeps no
 *                records) {@code agent:<slug>}
 */
public record StoredSnapshot(String sandbox, String name, Instant taken, SchemaDigest digest) {
    public StoredSnapshot {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(taken, "taken");
        Objects.requireNonNull(digest, "digest");
    }
}
