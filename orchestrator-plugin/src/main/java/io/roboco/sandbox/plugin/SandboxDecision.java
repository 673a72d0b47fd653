package io.roboco.sandbox.plugin;

import io.roboco.sandbox.provision.QueueStanding;
import io.roboco.sandbox.settings.OwnedSandbox;
import io.roboco.sandbox.settings.SandboxRecord;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The outcome of one {@code request_sandbox} call: the verb layer switches on it to build an envelope. */
public sealed interface SandboxDecision {

    /**
     * Working credentials for the services asked for.
     *
     * @param sandboxId       the agent's sandbox record ({@code sbx_…}); empty without records
     * @param expires         when it expires unless used again (null for never)
     * @param expiredPrevious the agent's previous sandbox, when it had expired and this is a fresh set; else null
     * @param path            {@code hit}, {@code pool} or {@code cold}
     * @param record          the sandbox's record, for a sandbox answered as it was made (a named one: its answer is
     *                        the record's view with these credentials, as {@code POST /api/sandboxes} answers); null for
     *                        the verb set, whose answer is its grants
     */
    record Granted(
            List<Grant> sandboxes,
            boolean cacheHit,
            String sandboxId,
            Instant expires,
            String expiredPrevious,
            String path,
            SandboxRecord record)
            implements SandboxDecision {
        /** A verb set's grant (no record in its answer). */
        public Granted(
                List<Grant> sandboxes,
                boolean cacheHit,
                String sandboxId,
                Instant expires,
                String expiredPrevious,
                String path) {
            this(sandboxes, cacheHit, sandboxId, expires, expiredPrevious, path, null);
        }

        public Granted(List<Grant> sandboxes, boolean cacheHit) {
            this(sandboxes, cacheHit, "", null, null, cacheHit ? "hit" : "cold");
        }
    }

    /**
     * A guard or a quota said no. Only the unavailable-handle guard is retryable.
     *
     * @param code           a short fixed reason ({@code flag_off}, {@code no_task}, {@code owner_quota}, …) for metrics
     * @param ownerSandboxes for a quota refusal, the owner's live sandboxes (delete one, then retry)
     */
    record Refused(String reason, boolean retryable, String code, List<OwnedSandbox> ownerSandboxes)
            implements SandboxDecision {
        public Refused {
            ownerSandboxes = ownerSandboxes == null ? List.of() : List.copyOf(ownerSandboxes);
        }

        public Refused(String reason, boolean retryable) {
            this(reason, retryable, "refused", List.of());
        }
    }

    /**
     * Provisioning failed (image missing, daemon unreachable, readiness timeout) or the server is at
     * capacity; nothing was left behind.
     *
     * @param code  {@code capacity} or {@code provisioning}
     * @param queue where a start the start queue refused stood in it (null: not such a refusal)
     */
    record InvalidState(String reason, boolean retryable, String code, QueueStanding queue) implements SandboxDecision {
        public InvalidState(String reason, boolean retryable, String code) {
            this(reason, retryable, code, null);
        }

        public InvalidState(String reason, boolean retryable) {
            this(reason, retryable, "provisioning");
        }
    }

    /**
     * One service's answer.
     *
     * @param featuresKey {@code available_extensions}, {@code available_modules} or null
     * @param features    the features active in this sandbox
     * @param limits      the container's caps: {@code memory}, {@code data_size} (the data tmpfs), {@code cpus}
     *                    (empty when not known)
     */
    record Grant(
            String service,
            Map<String, String> env,
            String featuresKey,
            List<String> features,
            Map<String, Object> limits) {
        public Grant {
            limits = limits == null ? Map.of() : Map.copyOf(limits);
        }

        /** A grant whose caps are not known. */
        public Grant(String service, Map<String, String> env, String featuresKey, List<String> features) {
            this(service, env, featuresKey, features, Map.of());
        }

        @Override
        public String toString() {
            return "Grant[" + service + ", envKeys=" + env.keySet() + ", " + featuresKey + "=" + features + ", limits="
                    + limits + "]";
        }
    }
}
