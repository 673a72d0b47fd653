package io.roboco.sandbox.settings;

import java.util.List;
import java.util.Optional;

/**
 * Named schema snapshots per sandbox (data issue), kept with the sandbox record so that they survive a restart which
 * re-adopts the sandbox. Marking a sandbox record deleted, or forgetting it, drops its snapshots in the same step
 * ({@link SandboxStore#markDeleted}, {@link SandboxStore#forgetSandbox}): a closed sandbox's snapshots do not outlive it.
 */
public interface SnapshotStore {

    /**
     * Saves the snapshot, replacing the one of the same sandbox and name, in one step; false (nothing written) when the
     * name is new and the sandbox already holds {@code max} snapshots.
     */
    boolean saveSnapshot(StoredSnapshot snapshot, int max);

    Optional<StoredSnapshot> findSnapshot(String sandbox, String name);

    /** The names of a sandbox's snapshots, oldest first (a replaced one keeps its place). */
    List<String> snapshotNames(String sandbox);

    /** Drops every snapshot of {@code sandbox} (one without a record, e.g. {@code agent:<slug>}); how many. */
    int deleteSnapshots(String sandbox);
}
