package io.roboco.sandbox.settings;

import java.time.Instant;
import java.util.Map;

/** One of an owner's live sandboxes as a refusal lists it (delete one, then retry). Never a credential. */
public record OwnedSandbox(String id, String name, String project, Map<String, String> labels, Instant expires) {
    public OwnedSandbox {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /** How a refusal lists {@code record}. */
    public static OwnedSandbox of(SandboxRecord record) {
        return new OwnedSandbox(record.id(), record.name(), record.project(), record.labels(), record.expires());
    }
}
