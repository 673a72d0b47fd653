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
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;

import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;

/**
 * A fresh container from an image to ready: new credentials, a free port (host mode), the ownership labels, its
 * turn at the start admission, {@code docker run}, then readiness polled until it answers on the admin credential.
 * The container enters the ledger as in flight the moment the runtime has started it; any failure after that is
 * diagnosed and the container removed ({@link StartDiagnosis}).
 */
final class ColdStart {
    /** A container that was started and became ready; still in flight. */
    record Started(StartedContainer container, String image, Endpoint endpoint, Credentials credentials,
                   ProbeTarget target, Instant created, long startedAt) {
    }

    private final ContainerRuntime runtime;
    private final ProvisionSettings settings;
    private final SecretSource secrets;
    private final Clock clock;
    private final ContainerLedger ledger;
    private final Containers containers;
    private final StartDiagnosis diagnosis;
    private final PortAllocator ports = new PortAllocator();
    /** Admission to start + readiness ({@link ProvisionSettings#concurrentStarts}), first come first served. */
    private final Semaphore starts;

    ColdStart(ContainerRuntime runtime, ProvisionSettings settings, SecretSource secrets, Clock clock, ContainerLedger ledger,
              Containers containers, StartDiagnosis diagnosis) {
        this.runtime = runtime;
        this.settings = settings;
        this.secrets = secrets;
        this.clock = clock;
        this.ledger = ledger;
        this.containers = containers;
        this.diagnosis = diagnosis;
        this.starts = new Semaphore(settings.concurrentStarts(), true);
    }

    /** Starts {@code engine} on {@code choice}'s image with {@code limits} for {@code agent} (or the pool) and waits until it is ready. */
    Started startReady(Engine engine, ImageChoice choice, Limits limits, String agent, String project, boolean pool) throws ProvisionException {
        String image = choice.image();
        Credentials credentials = engine.newCredentials(secrets);
        boolean hostMode = settings.network() instanceof NetworkMode.Host;
        int port = hostMode ? ports.next() : engine.defaultPort();
        String name = containerName(pool ? "pool" : agent, engine.name());
        ContainerSpec spec = engine.containerSpec(new SpecRequest(image, credentials, hostMode ? "127.0.0.1" : "0.0.0.0", port,
                limits.memoryBytes()));
        Instant created = clock.instant();
        Map<String, String> labels = new LinkedHashMap<>(
                SandboxLabels.forService(settings.instanceId(), agent, project, engine.name(), created.getEpochSecond()));
        if (!choice.major().isEmpty()) {
            labels.put(SandboxLabels.MAJOR, choice.major());
        }
        if (pool) {
            labels.put(SandboxLabels.POOL, "1");
        }
        RunRequest request = new RunRequest(name, spec, labels, limits, settings.network(), RunRequest.ENTRYPOINT_CAPABILITIES);

        try {
            starts.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProvisionException(StartDiagnosis.what(engine, agent) + " interrupted while waiting its turn to start", true, null);
        }
        try {
            return startAndAwait(engine, agent, request, image, credentials, name, port, created, hostMode);
        } finally {
            starts.release();
        }
    }

    private Started startAndAwait(Engine engine, String agent, RunRequest request, String image, Credentials credentials,
                                  String name, int port, Instant created, boolean hostMode) throws ProvisionException {
        StartedContainer container;
        try {
            container = runtime.start(request);
        } catch (ContainerRuntimeException e) {
            throw new ProvisionException(StartDiagnosis.what(engine, agent) + " could not start: " + e.getMessage(), true, e);
        }
        long startedAt = System.nanoTime();
        ledger.enter(container.id(), ContainerLedger.Reason.IN_FLIGHT, agent);
        Endpoint endpoint = new Endpoint(hostMode ? "127.0.0.1" : name, port);
        ProbeTarget target = containers.target(container.id(), endpoint, credentials);
        Started started = new Started(container, image, endpoint, credentials, target, created, startedAt);
        try {
            Readiness.await(engine.readiness(), target, settings.readyTimeout(), settings.pollGap());
            return started;
        } catch (Exception | Error e) {
            throw diagnosis.failed(engine, agent, started, e);
        }
    }

    private String containerName(String agent, String service) {
        String safeAgent = agent.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_.-]", "-");
        if (safeAgent.length() > 40) {
            safeAgent = safeAgent.substring(0, 40);
        }
        return "roboco-sbx-" + safeAgent + "-" + service + "-" + secrets.identifier().substring(0, 6);
    }
}
