package io.roboco.sandbox.settings;

import java.util.List;

/** What {@link SandboxStore#reserve} did: inserted the record, or why not. */
public sealed interface Reservation {

    /** The record is in the store, counted against its owner's and project's quotas. */
    record Reserved(SandboxRecord record) implements Reservation {}

    /**
     * A quota was full; nothing was inserted.
     *
     * @param scope      {@code owner} or {@code project}
     * @param limit      the quota that was reached
     * @param ownerLive  the owner's live sandboxes, oldest first, so the caller can delete one
     */
    record OverQuota(String scope, int limit, int live, List<SandboxRecord> ownerLive) implements Reservation {
        public OverQuota {
            ownerLive = List.copyOf(ownerLive);
        }
    }

    /** The owner already has an undeleted sandbox of this name; nothing was inserted. */
    record NameTaken(SandboxRecord existing) implements Reservation {}
}
