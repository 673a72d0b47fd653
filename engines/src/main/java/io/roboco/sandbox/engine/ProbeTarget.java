package io.roboco.sandbox.engine;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The narrow view a probe gets of a sandbox: where it answers, with what credentials, whether its
 * container still runs, and the tail of its log. No container-runtime types.
 */
public record ProbeTarget(Endpoint endpoint, Credentials credentials, BooleanSupplier running, Supplier<String> logTail) {
    public static ProbeTarget of(Endpoint endpoint, Credentials credentials) {
        return new ProbeTarget(endpoint, credentials, () -> true, () -> "");
    }
}
