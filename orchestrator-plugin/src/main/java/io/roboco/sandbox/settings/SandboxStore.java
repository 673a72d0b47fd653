package io.roboco.sandbox.settings;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Sandbox records, and the heartbeats of the server instances that hold them. Reservation is the one
 * atomic step of the quota rule: the count of the owner's (and project's) live sandboxes and the insert
 * happen under one lock or transaction, so concurrent creates, from one server or from several sharing
 * one database, can never pass a quota together.
 */
public interface SandboxStore {

    /**
     * Inserts {@code draft} unless its owner already holds {@link Quota#perOwner()} live sandboxes, its
     * project {@link Quota#perProject()} (when non-zero), or (for a named draft) the owner has an
     * undeleted sandbox of the same name. Live is judged at {@code draft.created()}.
     */
    Reservation reserve(SandboxRecord draft, Quota quota);

    Optional<SandboxRecord> findSandbox(String id);

    /** Matching records, oldest first. */
    List<SandboxRecord> sandboxes(SandboxQuery query);

    /**
     * Writes the mutable fields (labels, services, containers, expires) of an undeleted record;
     * false when it is missing or deleted.
     */
    boolean updateSandbox(SandboxRecord record);

    /**
     * Marks the record deleted at {@code when}; false when it is missing or was deleted already.
     * With {@code onlyIfExpired} it is marked only when its expiry is not after {@code when} (so a
     * renewal or extension that won the race keeps it).
     */
    boolean markDeleted(String id, Instant when, String reason, boolean onlyIfExpired);

    /** Removes a record that never became a sandbox (its provisioning failed). */
    void forgetSandbox(String id);

    /** Removes at most {@code batch} records deleted before {@code before}; returns how many. */
    int pruneSandboxes(Instant before, int batch);

    /** Records that {@code instance} was alive at {@code now}. */
    void heartbeat(String instance, Instant now);

    /** Every instance's last heartbeat. */
    Map<String, Instant> heartbeats();
}
