package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provisioner's hands on one container through the runtime: the narrow views an engine gets (a probe target, an
 * exec), and removal, which closes the container's live session and strikes it from the ledger whatever the runtime
 * answered. Removal takes only a container that carries this instance's labels ({@code roboco.sandbox=1} and
 * {@code roboco.sandbox.instance}): an id read from the store, or handed over by anyone, never removes another's
 * container (Docker labels are fixed at creation, and the removal names the id the inspection resolved). In network mode
 * a removal also removes its owner's network when it was the last sandbox container there ({@link OwnerNetworks}).
 */
final class Containers {
    private static final Logger log = LoggerFactory.getLogger(ServiceProvisioner.class);
    static final int LOG_TAIL_LINES = 15;

    private final ContainerRuntime runtime;
    private final ContainerLedger ledger;
    private final Liveness liveness;
    private final String instanceId;
    /** Network mode's owner and back networks; null in host mode. */
    private final OwnerNetworks networks;

    Containers(ContainerRuntime runtime, ContainerLedger ledger, Liveness liveness, String instanceId) {
        this(runtime, ledger, liveness, instanceId, null);
    }

    Containers(
            ContainerRuntime runtime,
            ContainerLedger ledger,
            Liveness liveness,
            String instanceId,
            OwnerNetworks networks) {
        this.runtime = runtime;
        this.ledger = ledger;
        this.liveness = liveness;
        this.instanceId = instanceId;
        this.networks = networks;
    }

    /** Lets {@code owner} reach a claimed pool container where the runtime enforces who may ({@link ContainerRuntime#admit}). */
    void admit(String containerId, String owner) {
        runtime.admit(containerId, owner);
    }

    /** Network mode's networks (where a container starts, whom it joins); null in host mode. */
    OwnerNetworks networks() {
        return networks;
    }

    /**
     * What a probe of the container sees: where it answers, its credentials, whether it runs, its (redacted) log tail,
     * and an exec into it (how an engine reaches the container's own server before trusting its port).
     */
    ProbeTarget target(String containerId, Endpoint endpoint, Credentials credentials) {
        return new ProbeTarget(
                endpoint,
                credentials,
                () -> runtime.isRunning(containerId),
                () -> Redaction.of(runtime.logTail(containerId, LOG_TAIL_LINES), credentials),
                exec(containerId));
    }

    /** Execs in the container through the runtime, streams included (a template's dump and restore). */
    ContainerExec exec(String containerId) {
        return new ContainerExec() {
            @Override
            public ExecResult exec(List<String> command, Map<String, String> env) {
                return runtime.exec(containerId, command, env);
            }

            @Override
            public ExecResult exec(
                    List<String> command, Map<String, String> env, InputStream stdin, OutputStream stdout) {
                return runtime.exec(containerId, command, env, stdin, stdout);
            }

            @Override
            public ExecResult execAs(
                    String user,
                    List<String> command,
                    Map<String, String> env,
                    InputStream stdin,
                    OutputStream stdout) {
                return runtime.execAs(containerId, user, command, env, stdin, stdout);
            }
        };
    }

    /**
     * Removes the container when it is this instance's sandbox container (a missing one is already removed; one without
     * our labels is left alone, with a warning); a runtime failure propagates, but the container is no longer in the
     * ledger either way. An interrupt (a shutdown's, a cancelled call's) is held back meanwhile, so the removal is
     * still sent.
     */
    void remove(String containerId) {
        liveness.drop(containerId);
        boolean interrupted = Thread.interrupted();
        try {
            Optional<ContainerState> found = runtime.inspect(containerId);
            if (found.isEmpty()) {
                return;
            }
            ContainerState container = found.get();
            if (!ours(container)) {
                log.warn(
                        "container {} ({}) is not one of this instance's sandbox containers (it lacks the labels {}=1 and {}={}); not"
                                + " removed. Whatever named it (a store row, a request) was altered or came from elsewhere: check the"
                                + " settings store",
                        containerId,
                        container.name(),
                        SandboxLabels.SANDBOX,
                        SandboxLabels.INSTANCE,
                        instanceId);
                return;
            }
            runtime.remove(container.id());
            if (networks != null) {
                networks.releaseAfterRemoval(container);
            }
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

    /** Made by this instance: Docker labels cannot be changed after creation, so they are proof enough. */
    private boolean ours(ContainerState container) {
        return "1".equals(container.labels().get(SandboxLabels.SANDBOX))
                && instanceId.equals(container.labels().get(SandboxLabels.INSTANCE));
    }
}
