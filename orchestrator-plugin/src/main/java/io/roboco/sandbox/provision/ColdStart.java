package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.Readiness;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;
import io.roboco.sandbox.runtime.VolumeMount;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fresh container from an image to ready: new credentials, a free port (host mode), the ownership labels, its
 * turn at the start admission, {@code docker run}, then readiness polled until it answers on the admin credential.
 * The container enters the ledger as in flight the moment the runtime has started it; any failure after that is
 * diagnosed and the container removed ({@link StartDiagnosis}).
 *
 * <p>In host mode a port is free when it is picked, not necessarily when the container binds it a moment later:
 * another process may take it in between. A container that exits before it is ready saying its address is in use
 * is therefore removed and started again on a new port, at most {@value #PORT_ATTEMPTS} times in all.
 */
final class ColdStart {
    /** A container that was started and became ready; still in flight. */
    record Started(
            StartedContainer container,
            String image,
            Endpoint endpoint,
            Credentials credentials,
            ProbeTarget target,
            Instant created,
            long startedAt,
            Endpoint agentEndpoint) {}

    private final ContainerRuntime runtime;
    private final ProvisionSettings settings;
    private final SecretSource secrets;
    private final Clock clock;
    private final ContainerLedger ledger;
    private final Containers containers;
    private final StartDiagnosis diagnosis;
    /** Starts in all for one container whose port was taken between the pick and the bind. */
    static final int PORT_ATTEMPTS = 3;

    private static final Logger log = LoggerFactory.getLogger(ColdStart.class);

    private final IntSupplier ports;
    /**
     * Admission to start + readiness ({@link ProvisionSettings#concurrentStarts}), first come first served across
     * owners, bounded per owner and in time ({@link StartQueue}).
     */
    private final StartQueue starts;
    /** Claims first: a start waits (bounded) while warm-pool claims run ({@link ClaimTurns}). */
    private final ClaimTurns claims = new ClaimTurns();
    /** Every start's runtime start to ready, per engine: what a set's start order is decided on ({@link SetStartOrder}). */
    private final SetStartOrder.StartTimes startTimes = new SetStartOrder.StartTimes();

    ColdStart(
            ContainerRuntime runtime,
            ProvisionSettings settings,
            SecretSource secrets,
            Clock clock,
            ContainerLedger ledger,
            Containers containers,
            StartDiagnosis diagnosis) {
        this(runtime, settings, secrets, clock, ledger, containers, diagnosis, new PortAllocator()::next);
    }

    /** With the source of host-mode ports (tests hand out a taken one first). */
    ColdStart(
            ContainerRuntime runtime,
            ProvisionSettings settings,
            SecretSource secrets,
            Clock clock,
            ContainerLedger ledger,
            Containers containers,
            StartDiagnosis diagnosis,
            IntSupplier ports) {
        this.ports = ports;
        this.runtime = runtime;
        this.settings = settings;
        this.secrets = secrets;
        this.clock = clock;
        this.ledger = ledger;
        this.containers = containers;
        this.diagnosis = diagnosis;
        this.starts =
                new StartQueue(settings.concurrentStarts(), settings.startQueuePerOwner(), settings.startQueueWait());
    }

    /** Starts {@code engine} on {@code choice}'s image with {@code limits} for {@code agent} (or the pool) and waits until it is ready. */
    Started startReady(Engine engine, ImageChoice choice, Limits limits, String agent, String project, boolean pool)
            throws ProvisionException {
        return startReady(engine, choice, limits, agent, project, pool, Map.of());
    }

    /** {@link #startReady(Engine, ImageChoice, Limits, String, String, boolean)} with {@code moreLabels} on the container. */
    Started startReady(
            Engine engine,
            ImageChoice choice,
            Limits limits,
            String agent,
            String project,
            boolean pool,
            Map<String, String> moreLabels)
            throws ProvisionException {
        return startReady(
                engine,
                choice,
                limits,
                agent,
                project,
                pool,
                moreLabels,
                UnaryOperator.identity(),
                List.of(),
                null,
                SetStartOrder.NONE);
    }

    /** What runs once the runtime has started the container and before readiness is awaited (a data directory written in). */
    @FunctionalInterface
    interface BeforeReady {
        void run(Started started) throws Exception;
    }

    /**
     * {@link #startReady(Engine, ImageChoice, Limits, String, String, boolean, Map)} with the engine's container spec
     * changed by {@code specOf} (a server held back, or supervised), {@code volumes} mounted, and {@code beforeReady} (null: nothing) run between
     * the start and readiness; a failure of it is diagnosed as a failed start and the container removed. {@code order}
     * places the start among its set's ({@link SetStartOrder}): a sibling of the set's first engine waits, before its
     * turn, until that engine's container has been started.
     */
    Started startReady(
            Engine engine,
            ImageChoice choice,
            Limits limits,
            String agent,
            String project,
            boolean pool,
            Map<String, String> moreLabels,
            UnaryOperator<ContainerSpec> specOf,
            List<VolumeMount> volumes,
            BeforeReady beforeReady,
            SetStartOrder order)
            throws ProvisionException {
        StartQueue.Turn turn;
        try {
            order.awaitTurn();
            claims.awaitClaims(ClaimTurns.MAX_DEFER);
            turn = starts.await(agent, StartDiagnosis.what(engine, agent));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProvisionException(
                    StartDiagnosis.what(engine, agent) + " interrupted while waiting its turn to start", true, null);
        }
        try {
            for (int attempt = 1; ; attempt++) {
                Attempt next = attempt(engine, choice, limits, agent, project, pool, moreLabels, specOf, volumes);
                try {
                    return startAndAwait(engine, agent, next, beforeReady, order);
                } catch (PortTaken taken) {
                    if (attempt == PORT_ATTEMPTS) {
                        ProvisionException failed = diagnosis.failed(engine, agent, taken.started, taken.notReady);
                        throw new ProvisionException(
                                "every port tried (" + PORT_ATTEMPTS + ") was taken by another process before the"
                                        + " container bound it (Address already in use): " + failed.getMessage(),
                                failed.retryable(),
                                failed);
                    }
                    containers.removeQuietly(taken.started.container().id());
                    log.info(
                            "{}: port {} was taken by another process before the container bound it; starting again on a new"
                                    + " port (attempt {} of {})",
                            StartDiagnosis.what(engine, agent),
                            next.port,
                            attempt + 1,
                            PORT_ATTEMPTS);
                }
            }
        } finally {
            turn.close();
        }
    }

    /** The engine of a set of {@code engines} to start first, from the starts measured so far ({@link SetStartOrder}). */
    Optional<String> firstOf(Collection<String> engines) {
        return SetStartOrder.slowest(engines, startTimes);
    }

    /** The claims a start gives way to. */
    ClaimTurns claims() {
        return claims;
    }

    /** The start admission's queue. */
    StartQueue queue() {
        return starts;
    }

    /** One try at starting a container: its credentials, port, name and run request. */
    private record Attempt(
            RunRequest request,
            String image,
            Credentials credentials,
            String name,
            int port,
            Instant created,
            boolean hostMode,
            String owner) {}

    private Attempt attempt(
            Engine engine,
            ImageChoice choice,
            Limits limits,
            String agent,
            String project,
            boolean pool,
            Map<String, String> moreLabels,
            UnaryOperator<ContainerSpec> specOf,
            List<VolumeMount> volumes) {
        String image = choice.image();
        Credentials credentials = engine.newCredentials(secrets);
        boolean hostMode = settings.network() instanceof NetworkMode.Host;
        int port = hostMode ? ports.getAsInt() : engine.defaultPort();
        String name = containerName(pool ? "pool" : agent, engine.name());
        ContainerSpec spec = specOf.apply(engine.containerSpec(
                new SpecRequest(image, credentials, hostMode ? "127.0.0.1" : "0.0.0.0", port, limits.memoryBytes())));
        Instant created = clock.instant();
        Map<String, String> labels = new LinkedHashMap<>(SandboxLabels.forService(
                settings.instanceId(), agent, project, engine.name(), created.getEpochSecond()));
        if (!choice.major().isEmpty()) {
            labels.put(SandboxLabels.MAJOR, choice.major());
        }
        if (pool) {
            labels.put(SandboxLabels.POOL, "1");
        }
        labels.putAll(moreLabels);
        RunRequest request = new RunRequest(
                name, spec, labels, limits, settings.network(), RunRequest.ENTRYPOINT_CAPABILITIES, volumes);
        return new Attempt(request, image, credentials, name, port, created, hostMode, pool ? null : agent);
    }

    private Started startAndAwait(
            Engine engine, String agent, Attempt attempt, BeforeReady beforeReady, SetStartOrder order)
            throws ProvisionException, PortTaken {
        StartedContainer container;
        boolean pods = settings.network() instanceof NetworkMode.Pods;
        long runtimeStart = System.nanoTime();
        try {
            container = attempt.hostMode || pods
                    ? runtime.start(attempt.request)
                    : containers.networks().start(attempt.request, attempt.owner);
        } catch (ContainerRuntimeException e) {
            throw new ProvisionException(
                    StartDiagnosis.what(engine, agent) + " could not start: " + e.getMessage(), true, e);
        } finally {
            order.started();
        }
        long startedAt = System.nanoTime();
        ledger.enter(container.id(), ContainerLedger.Reason.IN_FLIGHT, agent);
        // Network mode: the plugin reaches the port published on the host's loopback (the back network); the agent, the
        // container's name and the service's own port on its owner's network.
        // Kubernetes: both at the pod's address and the service's own port.
        Endpoint endpoint = pods
                ? new Endpoint(container.address() != null ? container.address() : container.name(), attempt.port)
                : new Endpoint("127.0.0.1", attempt.hostMode ? attempt.port : container.publishedPort());
        Endpoint agentEndpoint = attempt.hostMode || pods ? endpoint : new Endpoint(attempt.name, attempt.port);
        ProbeTarget target = containers.target(container.id(), endpoint, attempt.credentials);
        Started started = new Started(
                container,
                attempt.image,
                endpoint,
                attempt.credentials,
                target,
                attempt.created,
                startedAt,
                agentEndpoint);
        try {
            if (beforeReady != null) {
                beforeReady.run(started);
            }
            Readiness.await(engine.accepting(), target, settings.readyTimeout(), settings.pollGap());
            startTimes.record(engine.name(), System.nanoTime() - runtimeStart);
            return started;
        } catch (Readiness.NotReadyException e) {
            if (attempt.hostMode
                    && e.reason() == Readiness.NotReadyException.Cause.EXITED
                    && addressInUse(e.logTail())) {
                throw new PortTaken(started, e);
            }
            throw diagnosis.failed(engine, agent, started, e);
        } catch (Exception | Error e) {
            throw diagnosis.failed(engine, agent, started, e);
        }
    }

    /**
     * What Postgres, Redis and the JVM's stand-in each log when the address they bind is taken. Postgres logs the bind
     * error itself at LOG level, which its {@code log_min_messages=fatal} keeps out of the log; the FATAL that ends the
     * start ("could not create any TCP/IP sockets") stays, and in host mode on 127.0.0.1 a taken port is its cause.
     */
    static boolean addressInUse(String logTail) {
        if (logTail == null) {
            return false;
        }
        String tail = logTail.toLowerCase(Locale.ROOT);
        return tail.contains("address already in use") || tail.contains("could not create any tcp/ip sockets");
    }

    /** The container exited before it was ready because its port was taken meanwhile. */
    private static final class PortTaken extends Exception {
        final transient Started started;
        final Readiness.NotReadyException notReady;

        PortTaken(Started started, Readiness.NotReadyException notReady) {
            super(null, null, false, false);
            this.started = started;
            this.notReady = notReady;
        }
    }

    private String containerName(String agent, String service) {
        String safeAgent = Names.inDockerName(agent);
        if (safeAgent.length() > 40) {
            safeAgent = safeAgent.substring(0, 40);
        }
        return "roboco-sbx-" + safeAgent + "-" + service + "-"
                + secrets.identifier().substring(0, 6);
    }
}
