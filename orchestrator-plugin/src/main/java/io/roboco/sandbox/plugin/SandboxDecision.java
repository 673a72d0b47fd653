package io.roboco.sandbox.plugin;

import java.util.List;
import java.util.Map;

/** The outcome of one {@code request_sandbox} call: the verb layer switches on it to build an envelope. */
public sealed interface SandboxDecision {

    /** Working credentials for the services asked for. */
    record Granted(List<Grant> sandboxes, boolean cacheHit) implements SandboxDecision {
    }

    /** A guard said no. Only the unavailable-handle guard is retryable. */
    record Refused(String reason, boolean retryable) implements SandboxDecision {
    }

    /** Provisioning failed (image missing, daemon unreachable, readiness timeout); nothing was left behind. */
    record InvalidState(String reason, boolean retryable) implements SandboxDecision {
    }

    /**
     * One service's answer.
     *
     * @param featuresKey {@code available_extensions}, {@code available_modules} or null
     * @param features    the features active in this sandbox
     */
    record Grant(String service, Map<String, String> env, String featuresKey, List<String> features) {
        @Override
        public String toString() {
            return "Grant[" + service + ", envKeys=" + env.keySet() + ", " + featuresKey + "=" + features + "]";
        }
    }
}
