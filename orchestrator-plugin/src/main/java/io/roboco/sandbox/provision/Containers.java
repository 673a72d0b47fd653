package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.runtime.ContainerRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provisioner's hands on one container through the runtime: the narrow views an engine gets (a probe target, an
 * exec), and removal, which closes the container's live session and strikes it from the ledger whatever the runtime
 * answered.
 */
final class Containers {
    private static final Logger log = LoggerFactory.getLogger(ServiceProvisioner.class);
    static final int LOG_TAIL_LINES = 15;

    private final ContainerRuntime runtime;
    private final ContainerLedger ledger;
    private final Liveness liveness;

    Containers(ContainerRuntime runtime, ContainerLedger ledger, Liveness liveness) {
        this.runtime = runtime;
        this.ledger = ledger;
        this.liveness = liveness;
    }

    /** What a probe of the container sees: where it answers, its credentials, whether it runs, its (redacted) log tail. */
    ProbeTarget target(String containerId, Endpoint endpoint, Credentials credentials) {
        return new ProbeTarget(endpoint, credentials, () -> runtime.isRunning(containerId),
                () -> Redaction.of(runtime.logTail(containerId, LOG_TAIL_LINES), credentials));
    }

    /** Execs in the container through the runtime, streams included (a template's dump and restore). */
    ContainerExec exec(String containerId) {
        return new ContainerExec() {
            @Override
            public io.roboco.sandbox.engine.ExecResult exec(java.util.List<String> command, java.util.Map<String, String> env) {
                return runtime.exec(containerId, command, env);
            }

            @Override
            public io.roboco.sandbox.engine.ExecResult exec(java.util.List<String> command, java.util.Map<String, String> env,
                                                             java.io.InputStream stdin, java.io.OutputStream stdout) {
                return runtime.exec(containerId, command, env, stdin, stdout);
            }
        };
    }

    /**
     * Removes the container; a runtime failure propagates, but the container is no longer in the ledger either way.
     * An interrupt (a shutdown's, a cancelled call's) is held back meanwhile, so the removal is still sent.
     */
    void remove(String containerId) {
        liveness.drop(containerId);
        boolean interrupted = Thread.interrupted();
        try {
            runtime.remove(containerId);
        } finally {
            ledger.strike(containerId);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@link #remove}, never throwing: a failure is logged and the janitor retries. */
    void removeQuietly(String containerId) {
        try {
            remove(containerId);
        } catch (RuntimeException e) {
            log.warn("could not remove sandbox container {}: {} (the janitor will retry)", containerId, e.getMessage());
        }
    }
}
