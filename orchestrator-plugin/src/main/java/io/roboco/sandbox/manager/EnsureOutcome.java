package io.roboco.sandbox.manager;

import io.roboco.sandbox.provision.QueueStanding;
import io.roboco.sandbox.provision.ServiceInstance;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** What {@link SandboxManager#ensure} produced: ready services, a denial by the admission, or a provisioning failure. */
public sealed interface EnsureOutcome {
    /** How the services of a ready answer came to be. */
    enum Path {
        /** Every service from the live cache: no container was created. */
        HIT,
        /** New containers, all claimed from the warm pool. */
        POOL,
        /** At least one container started cold. */
        COLD;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * @param services the asked-for services, in the order asked
     * @param cacheHit true when no container was created for this call
     * @param sandboxId the set's record id (empty without records)
     * @param expires   when the set expires (null for never)
     * @param expiredPrevious the id of this agent's previous set, when it had expired and this call made a new one; else null
     */
    record Ready(
            List<ServiceInstance> services,
            boolean cacheHit,
            Path path,
            String sandboxId,
            Instant expires,
            String expiredPrevious)
            implements EnsureOutcome {
        public Ready(List<ServiceInstance> services, boolean cacheHit) {
            this(services, cacheHit, cacheHit ? Path.HIT : Path.COLD, "", null, null);
        }
    }

    /** The admission said no (quota or capacity); no container was started. */
    record Denied(Admission.Decision.Denied denial) implements EnsureOutcome {}

    /** Provisioning failed; nothing of this attempt is left running. The reason has no secrets. */
    /** {@code queue}: where a start the start queue refused stood in it (null: not such a refusal). */
    record Failed(String reason, boolean retryable, QueueStanding queue) implements EnsureOutcome {
        public Failed(String reason, boolean retryable) {
            this(reason, retryable, null);
        }
    }
}
