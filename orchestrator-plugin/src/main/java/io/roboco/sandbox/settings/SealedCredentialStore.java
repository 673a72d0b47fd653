package io.roboco.sandbox.settings;

import java.util.List;

/**
 * The sealed credentials of sandbox containers, one row per container (see {@link SealedContainer}), so a restarted
 * server can re-adopt the sandboxes it handed out. Marking a sandbox record deleted, or forgetting it, drops its rows in
 * the same step ({@link SandboxStore#markDeleted}, {@link SandboxStore#forgetSandbox}): a closed sandbox's credentials
 * do not outlive it.
 */
public interface SealedCredentialStore {

    /** Inserts the row, or replaces the one of the same sandbox id and container id. */
    void saveSealed(SealedContainer row);

    /** Every row of {@code instance} (its sandboxes' containers and its idle pool containers), oldest first. */
    List<SealedContainer> sealedOf(String instance);

    /** Drops one container's row; false when there was none. */
    boolean deleteSealed(String sandboxId, String containerId);

    /**
     * Replaces the row's sealed value only while it still is {@code expected} (a key rotation racing a write loses
     * nothing); false when it changed or is gone.
     */
    boolean resealIf(String sandboxId, String containerId, String expected, String next);
}
