package io.roboco.sandbox.readopt;

import io.roboco.sandbox.pool.PoolJournal;
import io.roboco.sandbox.provision.ServiceInstance;

/** The warm pool's idle containers kept in the vault (their admin credential sealed), so a restart takes them back. */
public final class SealedPool implements PoolJournal {
    private final CredentialVault vault;

    public SealedPool(CredentialVault vault) {
        this.vault = vault;
    }

    @Override
    public void pooled(String poolKey, ServiceInstance idle) {
        vault.sealPooled(poolKey, idle);
    }

    @Override
    public void left(String containerId) {
        vault.forgetPooled(containerId);
    }
}
