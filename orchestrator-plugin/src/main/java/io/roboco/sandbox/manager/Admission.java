package io.roboco.sandbox.manager;

import io.roboco.sandbox.settings.OwnedSandbox;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The manager's bookkeeping hook: asked (under the agent's lock) before any container of a verb set is
 * started, told when the set is cached, served, or gone. The lifecycle's implementation reserves a
 * sandbox record against the quotas and the server's capacity in one atomic step each, slides the
 * expiry on use, and records the containers; {@link #unlimited()} keeps no records (embedding, tests).
 */
public interface Admission {

    /**
     * May {@code containers} new containers start for this request? {@code current} is null for a
     * whole new set, else the live set that is growing. {@code labels} are the call's (null: none given).
     */
    Decision admit(SandboxRequest request, Map<String, String> labels, AgentSandbox current, int containers);

    /** The admitted containers are started and the set is cached as {@code entry}. */
    void settled(Decision.Admitted admitted, AgentSandbox entry);

    /** The admitted start failed; nothing of it is left running. */
    void failed(Decision.Admitted admitted, AgentSandbox current);

    /** A call was served from {@code entry} (a cache hit or in-place activation); returns it, renewed as the policy says. */
    AgentSandbox served(SandboxRequest request, Map<String, String> labels, AgentSandbox entry);

    /** The set is gone (released, evicted, expired); {@code why} is recorded. */
    void ended(AgentSandbox entry, String why);

    sealed interface Decision {
        /** Go ahead; {@code sandboxId} and {@code expires} go on the cache entry. */
        record Admitted(String sandboxId, Instant expires, Runnable release) implements Decision {}

        /**
         * Not now: a quota ({@code retryable=false}) or the server's capacity ({@code retryable=true}).
         *
         * @param code       a short fixed reason for metrics, e.g. {@code owner_quota}, {@code capacity}
         * @param refusal    true for a refusal, false for an invalid_state
         * @param ownerSandboxes the owner's live sandboxes, for a quota refusal
         */
        record Denied(String reason, boolean retryable, boolean refusal, String code, List<OwnedSandbox> ownerSandboxes)
                implements Decision {
            public Denied {
                ownerSandboxes = ownerSandboxes == null ? List.of() : List.copyOf(ownerSandboxes);
            }
        }
    }

    /** No records, no limits: every start is admitted and nothing expires. */
    static Admission unlimited() {
        return Unlimited.INSTANCE;
    }

    final class Unlimited implements Admission {
        static final Unlimited INSTANCE = new Unlimited();

        @Override
        public Decision admit(
                SandboxRequest request, Map<String, String> labels, AgentSandbox current, int containers) {
            return new Decision.Admitted(
                    current == null ? "" : current.id(), current == null ? null : current.expires(), () -> {});
        }

        @Override
        public void settled(Decision.Admitted admitted, AgentSandbox entry) {}

        @Override
        public void failed(Decision.Admitted admitted, AgentSandbox current) {}

        @Override
        public AgentSandbox served(SandboxRequest request, Map<String, String> labels, AgentSandbox entry) {
            return entry;
        }

        @Override
        public void ended(AgentSandbox entry, String why) {}
    }
}
