package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.ClaimSession;
import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.LiveSession;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.Readiness;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * Turns "postgres for agent dev-3 in project shop, with pg_trgm" into one running, ready, isolated
 * container whose agent credential works — or into a {@link ProvisionException} that says why, with
 * nothing left behind. Also activates features on a live service and checks liveness.
 */
public final class ServiceProvisioner {
    private static final Logger log = LoggerFactory.getLogger(ServiceProvisioner.class);
    private static final int LOG_TAIL_LINES = 15;
    /** Agent and project label value of a warm-pool container: owned by no agent. */
    public static final String POOL_OWNER = "-";

    private final ContainerRuntime runtime;
    private final ProvisionSettings settings;
    private final SecretSource secrets;
    private final Clock clock;
    private final PortAllocator ports = new PortAllocator();
    private final ContainerLedger ledger;
    private final LiveSessions sessions;
    /** Admission to start + readiness ({@link ProvisionSettings#concurrentStarts}), first come first served. */
    private final Semaphore starts;

    public ServiceProvisioner(ContainerRuntime runtime, ProvisionSettings settings, SecretSource secrets, Clock clock) {
        this(runtime, settings, secrets, clock, new ContainerLedger(clock));
    }

    /** With the ledger this process keeps its containers in (the manager, the pool and the janitor share it). */
    public ServiceProvisioner(ContainerRuntime runtime, ProvisionSettings settings, SecretSource secrets, Clock clock,
                              ContainerLedger ledger) {
        this.runtime = runtime;
        this.ledger = ledger;
        this.settings = settings;
        this.secrets = secrets;
        this.clock = clock;
        this.sessions = new LiveSessions(settings.readyTimeout());
        this.starts = new Semaphore(settings.concurrentStarts(), true);
    }

    public ProvisionSettings settings() {
        return settings;
    }

    public ContainerRuntime runtime() {
        return runtime;
    }

    /** Every container this process owns and why; the provisioner enters each one it starts, and strikes each it removes. */
    public ContainerLedger ledger() {
        return ledger;
    }

    /**
     * Starts, readies and prepares one service on the plan's image; activates the plan's features.
     * The container is in the {@linkplain #ledger() ledger} as in flight until the caller moves it.
     */
    public ServiceInstance provision(ServicePlan plan, String agent, String project) throws ProvisionException {
        Engine engine = plan.engine();
        ImageChoice choice = plan.image();
        long t0 = System.nanoTime();
        Started s = startReady(engine, choice, agent, project, false);
        long ready = System.nanoTime();
        try {
            engine.prepareAgent(s.target());
            long prepared = System.nanoTime();
            activateAll(engine, s.container().id(), s.credentials(), s.image(), plan.features());
            ServiceInstance instance = new ServiceInstance(engine.name(), s.image(), s.container().id(), s.container().name(),
                    s.endpoint(), s.credentials(), plan.featureNames(), s.created(), choice.major());
            sessions.openLater(engine, instance);
            if (log.isDebugEnabled()) {
                log.debug("{} for agent {}: start {} ms, ready {} ms, prepareAgent {} ms, activate {} ms, total {} ms", engine.name(), agent,
                        ms(t0, s.startedAt()), ms(s.startedAt(), ready), ms(ready, prepared), ms(prepared, System.nanoTime()), ms(t0, System.nanoTime()));
            }
            return instance;
        } catch (Exception | Error e) {
            throw failed(engine, agent, s, e);
        }
    }

    /**
     * Starts one ready warm-pool container for {@code engine}: labelled {@link SandboxLabels#POOL} with agent and
     * project {@value #POOL_OWNER}, its admin credential only (no agent user exists in it). In the ledger as in flight until its owner moves it.
     */
    public ServiceInstance startPooled(Engine engine) throws ProvisionException {
        return startPooled(engine, settings.choose(engine, null));
    }

    /** {@link #startPooled(Engine)} on the image {@code choice} names: the pool keeps containers per image (per major). */
    public ServiceInstance startPooled(Engine engine, ImageChoice choice) throws ProvisionException {
        long t0 = System.nanoTime();
        Started s = startReady(engine, choice, POOL_OWNER, POOL_OWNER, true);
        log.debug("{} pool container {} ready in {} ms", engine.name(), s.container().name(), ms(t0, System.nanoTime()));
        return new ServiceInstance(engine.name(), s.image(), s.container().id(), s.container().name(), s.endpoint(),
                s.credentials(), Set.of(), s.created(), choice.major());
    }

    /**
     * A ready pool container's claim session, opened off the agent's path ({@link Engine#openClaimSession});
     * null when it cannot be opened (the claim then opens what it needs itself).
     */
    public ClaimSession openClaimSession(Engine engine, ServiceInstance pooled) {
        try {
            return engine.openClaimSession(ProbeTarget.of(pooled.endpoint(), pooled.credentials()));
        } catch (Exception e) {
            log.info("{} pool container {}: claim session not opened ({}); its claim will log in itself", engine.name(),
                    pooled.containerName(), redact(String.valueOf(e.getMessage()), pooled.credentials()));
            return null;
        }
    }

    /**
     * Hands a ready warm-pool container to {@code agent}: credentials made now ({@link Engine#claimCredentials}),
     * the agent's user and database created ({@link Engine#prepareClaim}) on the held claim {@code session} (closed
     * here; null: without one), the plan's features activated. On failure the container is removed. In the ledger as
     * claimed until its owner moves it.
     */
    public ServiceInstance claim(ServicePlan plan, ServiceInstance pooled, ClaimSession session, String agent)
            throws ProvisionException {
        Engine engine = plan.engine();
        long t0 = System.nanoTime();
        String id = pooled.containerId();
        ledger.enter(id, ContainerLedger.Reason.CLAIMED, agent);
        Credentials credentials = engine.claimCredentials(pooled.credentials(), secrets);
        try {
            ProbeTarget target = target(id, pooled.endpoint(), credentials);
            if (session != null) {
                try {
                    session.claim(target);
                } finally {
                    session.close();
                }
            } else {
                engine.prepareClaim(target);
            }
            long prepared = System.nanoTime();
            activateAll(engine, id, credentials, pooled.image(), plan.features());
            ServiceInstance instance = new ServiceInstance(engine.name(), pooled.image(), id, pooled.containerName(),
                    pooled.endpoint(), credentials, plan.featureNames(), clock.instant(), pooled.major());
            sessions.openLater(engine, instance);
            log.debug("{} pool container {} claimed for agent {}: prepareClaim {} ms, activate {} ms", engine.name(),
                    pooled.containerName(), agent, ms(t0, prepared), ms(prepared, System.nanoTime()));
            return instance;
        } catch (FeatureUnavailableException e) {
            remove(id);
            throw new ProvisionException(e.getMessage() + "; container removed", false, null);
        } catch (Exception | Error e) {
            remove(id);
            throw new ProvisionException(what(engine, agent) + " claim of a warm-pool container failed: "
                    + redact(String.valueOf(e.getMessage()), credentials) + "; container removed", true, null);
        }
    }

    /** Activates the plan's features a live service lacks, without a teardown; returns the updated instance. */
    public ServiceInstance activate(ServicePlan plan, ServiceInstance instance) throws ProvisionException {
        Engine engine = plan.engine();
        Set<AllowedFeature> missing = new TreeSet<>(plan.features());
        missing.removeIf(f -> instance.features().contains(f.name()));
        if (missing.isEmpty()) {
            return instance;
        }
        for (AllowedFeature feature : missing) {
            try {
                engine.activate(feature, exec(instance.containerId()), instance.credentials(), instance.image());
            } catch (FeatureUnavailableException e) {
                throw new ProvisionException(e.getMessage(), false, null);
            } catch (Exception e) {
                throw new ProvisionException(engine.name() + " feature '" + feature + "' could not be activated for "
                        + instance.containerName() + ": " + redact(String.valueOf(e.getMessage()), instance.credentials()), true, null);
            }
        }
        return instance.withFeatures(plan.featureNames());
    }

    /**
     * The container runs and the service answers on a session the agent's own credential opened (held since
     * provisioning; see {@link Engine#openLiveSession}). When the session holds a connection into the container,
     * its answer proves the container runs ({@link LiveSession#provesRunning}) and no runtime inspect is made
     * (an inspect costs a daemon round trip, several ms on a loaded 2-core machine); otherwise the runtime is
     * asked first. One check, no retries.
     */
    public boolean isLive(Engine engine, ServiceInstance instance) {
        try {
            LiveSession session = sessions.held(instance);
            if ((session == null || !session.provesRunning()) && !runtime.isRunning(instance.containerId())) {
                return false;
            }
            if (session == null) {
                session = sessions.open(engine, instance);
            }
            try {
                session.check();
            } catch (Exception e) {
                sessions.drop(instance.containerId());
                throw e;
            }
            return true;
        } catch (Exception e) {
            log.info("{} sandbox {} failed its liveness check: {}", instance.service(), instance.containerName(),
                    redact(String.valueOf(e.getMessage()), instance.credentials()));
            return false;
        }
    }

    /**
     * Forgets the held liveness session of {@code instance} (a checkpoint or rewind closed it on purpose); the next
     * liveness check opens a new one instead of failing on the closed one.
     */
    public void resetLiveSession(ServiceInstance instance) {
        sessions.drop(instance.containerId());
    }

    /** Removes the container (closing its live session); never throws (removal of a missing container is success). */
    public void removeQuietly(String containerId) {
        try {
            remove(containerId);
        } catch (RuntimeException e) {
            log.warn("could not remove sandbox container {}: {} (the janitor will retry)", containerId, e.getMessage());
        }
    }

    private void remove(String containerId) {
        sessions.drop(containerId);
        try {
            runtime.remove(containerId);
        } finally {
            ledger.strike(containerId);
        }
    }

    // --- internals -------------------------------------------------------------------------------

    /** A container that was started and became ready; still in flight. */
    private record Started(StartedContainer container, String image, Endpoint endpoint, Credentials credentials,
                           ProbeTarget target, Instant created, long startedAt) {
    }

    private Started startReady(Engine engine, ImageChoice choice, String agent, String project, boolean pool)
            throws ProvisionException {
        String image = choice.image();
        Credentials credentials = engine.newCredentials(secrets);
        boolean hostMode = settings.network() instanceof NetworkMode.Host;
        int port = hostMode ? ports.next() : engine.defaultPort();
        String name = containerName(pool ? "pool" : agent, engine.name());
        ContainerSpec spec = engine.containerSpec(new SpecRequest(image, credentials, hostMode ? "127.0.0.1" : "0.0.0.0", port,
                settings.limits().memoryBytes()));
        Instant created = clock.instant();
        Map<String, String> labels = new LinkedHashMap<>(
                SandboxLabels.forService(settings.instanceId(), agent, project, engine.name(), created.getEpochSecond()));
        if (!choice.major().isEmpty()) {
            labels.put(SandboxLabels.MAJOR, choice.major());
        }
        if (pool) {
            labels.put(SandboxLabels.POOL, "1");
        }
        RunRequest request = new RunRequest(name, spec, labels, settings.limits(), settings.network(), RunRequest.ENTRYPOINT_CAPABILITIES);

        try {
            starts.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProvisionException(what(engine, agent) + " interrupted while waiting its turn to start", true, null);
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
            throw new ProvisionException(what(engine, agent) + " could not start: " + e.getMessage(), true, e);
        }
        long startedAt = System.nanoTime();
        ledger.enter(container.id(), ContainerLedger.Reason.IN_FLIGHT, agent);
        Endpoint endpoint = new Endpoint(hostMode ? "127.0.0.1" : name, port);
        ProbeTarget target = target(container.id(), endpoint, credentials);
        Started started = new Started(container, image, endpoint, credentials, target, created, startedAt);
        try {
            Readiness.await(engine.readiness(), target, settings.readyTimeout(), settings.pollGap());
            return started;
        } catch (Exception | Error e) {
            throw failed(engine, agent, started, e);
        }
    }

    /** Diagnoses a failure after start, removes the container, and says so. */
    private ProvisionException failed(Engine engine, String agent, Started s, Throwable e) {
        String id = s.container().id();
        Credentials credentials = s.credentials();
        if (e instanceof Readiness.NotReadyException) {
            String state = runtime.inspect(id).map(ContainerState::describe).orElse("container gone");
            String tail = redact(runtime.logTail(id, LOG_TAIL_LINES), credentials);
            removeQuietly(id);
            return new ProvisionException(what(engine, agent) + " not ready in " + settings.readyTimeout().toSeconds() + "s ("
                    + state + "; " + redact(e.getMessage(), credentials) + "); last log lines: " + oneLine(tail)
                    + "; container removed", true, null);
        }
        removeQuietly(id);
        if (e instanceof FeatureUnavailableException) {
            return new ProvisionException(e.getMessage() + "; container removed", false, null);
        }
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return new ProvisionException(what(engine, agent) + " interrupted while starting; container removed", true, null);
        }
        return new ProvisionException(what(engine, agent) + " setup failed: " + redact(String.valueOf(e.getMessage()), credentials)
                + "; container removed", true, null);
    }

    private void activateAll(Engine engine, String containerId, Credentials credentials, String image, Set<AllowedFeature> features)
            throws Exception {
        for (AllowedFeature feature : new TreeSet<>(features)) {
            engine.activate(feature, exec(containerId), credentials, image);
        }
    }

    private static long ms(long fromNanos, long toNanos) {
        return (toNanos - fromNanos) / 1_000_000;
    }

    private ProbeTarget target(String containerId, Endpoint endpoint, Credentials credentials) {
        return new ProbeTarget(endpoint, credentials, () -> runtime.isRunning(containerId),
                () -> redact(runtime.logTail(containerId, LOG_TAIL_LINES), credentials));
    }

    private ContainerExec exec(String containerId) {
        return (command, env) -> runtime.exec(containerId, command, env);
    }

    private String containerName(String agent, String service) {
        String safeAgent = agent.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_.-]", "-");
        if (safeAgent.length() > 40) {
            safeAgent = safeAgent.substring(0, 40);
        }
        return "roboco-sbx-" + safeAgent + "-" + service + "-" + secrets.identifier().substring(0, 6);
    }

    private static String what(Engine engine, String agent) {
        return engine.name() + " sandbox for agent " + agent;
    }

    /** Removes both passwords from text that came from a container or a driver. */
    static String redact(String text, Credentials credentials) {
        if (text == null) {
            return "";
        }
        String out = text;
        for (String secret : new String[] {credentials.password(), credentials.adminPassword()}) {
            if (secret != null && !secret.isEmpty()) {
                out = out.replace(secret, "<redacted>");
            }
        }
        return out;
    }

    private static String oneLine(String text) {
        String flat = text.strip().replace('\n', '|');
        return flat.isEmpty() ? "(empty)" : flat.length() > 1500 ? flat.substring(flat.length() - 1500) : flat;
    }
}
