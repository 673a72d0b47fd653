package io.roboco.sandbox.engine;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The narrow view a probe gets of a sandbox: where it answers, with what credentials, whether its
 * container still runs, the tail of its log, and an exec into the container (the channel that reaches the
 * container's own processes whoever listens on its port). No container-runtime types.
 */
public record ProbeTarget(
        Endpoint endpoint,
        Credentials credentials,
        BooleanSupplier running,
        Supplier<String> logTail,
        ContainerExec exec) {
    /** An exec for a target that has none: every call fails saying so. */
    public static final ContainerExec NO_EXEC = (command, env) -> {
        throw new UnsupportedOperationException("this probe target has no exec into its container");
    };

    /** A target without an exec ({@link #NO_EXEC}). */
    public ProbeTarget(Endpoint endpoint, Credentials credentials, BooleanSupplier running, Supplier<String> logTail) {
        this(endpoint, credentials, running, logTail, NO_EXEC);
    }

    public static ProbeTarget of(Endpoint endpoint, Credentials credentials) {
        return new ProbeTarget(endpoint, credentials, () -> true, () -> "");
    }

    /** The same container seen with other credentials (a claim's, a seeder's). */
    public ProbeTarget withCredentials(Credentials other) {
        return new ProbeTarget(endpoint, other, running, logTail, exec);
    }
}
