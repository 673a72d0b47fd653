package io.roboco.sandbox.manager;

import io.roboco.sandbox.provision.ServiceInstance;

import java.util.List;

/** What {@link SandboxManager#ensure} produced: ready services, or a provisioning failure. */
public sealed interface EnsureOutcome {
    /**
     * @param services the asked-for services, in the order asked
     * @param cacheHit true when no container was created for this call
     */
    record Ready(List<ServiceInstance> services, boolean cacheHit) implements EnsureOutcome {
    }

    /** Provisioning failed; nothing of this attempt is left running. The reason has no secrets. */
    record Failed(String reason, boolean retryable) implements EnsureOutcome {
    }
}
