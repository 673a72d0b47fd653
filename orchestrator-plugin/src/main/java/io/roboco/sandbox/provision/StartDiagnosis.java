package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.Readiness;
import io.roboco.sandbox.engine.SeedException;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import java.time.Duration;

/**
 * What went wrong after a container started, said so an operator can act: for a readiness timeout the container's
 * state (exited with what code, OOM-killed) and its log tail, then the container is removed and the message says so.
 * The message never carries a password.
 */
final class StartDiagnosis {
    private final ContainerRuntime runtime;
    private final Containers containers;
    private final Duration readyTimeout;

    StartDiagnosis(ContainerRuntime runtime, Containers containers, Duration readyTimeout) {
        this.runtime = runtime;
        this.containers = containers;
        this.readyTimeout = readyTimeout;
    }

    /** Diagnoses {@code failure} of the started container, removes it, and returns the failure to throw. */
    ProvisionException failed(Engine engine, String agent, ColdStart.Started started, Throwable failure) {
        String id = started.container().id();
        Credentials credentials = started.credentials();
        if (failure instanceof Readiness.NotReadyException) {
            String state = runtime.inspect(id).map(ContainerState::describe).orElse("container gone");
            String tail = Redaction.of(runtime.logTail(id, Containers.LOG_TAIL_LINES), credentials);
            containers.removeQuietly(id);
            return new ProvisionException(
                    what(engine, agent) + " not ready in " + readyTimeout.toSeconds() + "s ("
                            + state + "; " + Redaction.of(failure.getMessage(), credentials) + "); last log lines: "
                            + oneLine(tail)
                            + "; container removed",
                    true,
                    null);
        }
        containers.removeQuietly(id);
        if (failure instanceof SeedException) {
            return new ProvisionException(
                    what(engine, agent) + ": the project's seed failed: "
                            + Redaction.of(failure.getMessage(), credentials) + "; container removed",
                    true,
                    null);
        }
        if (failure instanceof FeatureUnavailableException) {
            return new ProvisionException(failure.getMessage() + "; container removed", false, null);
        }
        if (failure instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return new ProvisionException(
                    what(engine, agent) + " interrupted while starting; container removed", true, null);
        }
        return new ProvisionException(
                what(engine, agent) + " setup failed: "
                        + Redaction.of(String.valueOf(failure.getMessage()), credentials) + "; container removed",
                true,
                null);
    }

    static String what(Engine engine, String agent) {
        return engine.name() + " sandbox for agent " + agent;
    }

    private static String oneLine(String text) {
        String flat = text.strip().replace('\n', '|');
        return flat.isEmpty() ? "(empty)" : flat.length() > 1500 ? flat.substring(flat.length() - 1500) : flat;
    }
}
