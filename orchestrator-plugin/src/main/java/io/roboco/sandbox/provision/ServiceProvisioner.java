package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.Readiness;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;
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
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns "postgres for agent dev-3 in project shop, with pg_trgm" into one running, ready, isolated
 * container whose agent credential works — or into a {@link ProvisionException} that says why, with
 * nothing left behind. Also activates features on a live service and checks liveness.
 */
public final class ServiceProvisioner {
    private static final Logger log = LoggerFactory.getLogger(ServiceProvisioner.class);
    private static final int LOG_TAIL_LINES = 15;

    private final ContainerRuntime runtime;
    private final ProvisionSettings settings;
    private final SecretSource secrets;
    private final Clock clock;
    private final PortAllocator ports = new PortAllocator();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

    public ServiceProvisioner(ContainerRuntime runtime, ProvisionSettings settings, SecretSource secrets, Clock clock) {
        this.runtime = runtime;
        this.settings = settings;
        this.secrets = secrets;
        this.clock = clock;
    }

    public ProvisionSettings settings() {
        return settings;
    }

    public ContainerRuntime runtime() {
        return runtime;
    }

    /** Starts, readies and prepares one service; activates {@code features} (already allowlist-checked). */
    public ServiceInstance provision(Engine engine, String agent, String project, Collection<String> features) throws ProvisionException {
        requireAllowed(engine, features);
        String image = settings.imageFor(engine);
        Credentials credentials = engine.newCredentials(secrets);
        boolean hostMode = settings.network() instanceof NetworkMode.Host;
        int port = hostMode ? ports.next() : engine.defaultPort();
        String name = containerName(agent, engine.name());
        ContainerSpec spec = engine.containerSpec(new SpecRequest(image, credentials, hostMode ? "127.0.0.1" : "0.0.0.0", port));
        Instant created = clock.instant();
        RunRequest request = new RunRequest(name, spec,
                SandboxLabels.forService(settings.instanceId(), agent, project, engine.name(), created.getEpochSecond()),
                settings.limits(), settings.network(), RunRequest.ENTRYPOINT_CAPABILITIES);

        StartedContainer container;
        try {
            container = runtime.start(request);
        } catch (ContainerRuntimeException e) {
            throw new ProvisionException(what(engine, agent) + " could not start: " + e.getMessage(), true, e);
        }
        Endpoint endpoint = new Endpoint(hostMode ? "127.0.0.1" : name, port);
        ProbeTarget target = target(container.id(), endpoint, credentials);
        inFlight.add(container.id());
        try {
            Readiness.await(engine.readiness(), target, settings.readyTimeout(), settings.pollGap());
            engine.prepareAgent(target);
            for (String feature : new TreeSet<>(features)) {
                engine.activate(feature, exec(container.id()), credentials, image);
            }
            return new ServiceInstance(engine.name(), image, container.id(), name, endpoint, credentials, Set.copyOf(features), created);
        } catch (Readiness.NotReadyException e) {
            String state = runtime.inspect(container.id()).map(ContainerState::describe).orElse("container gone");
            String tail = redact(runtime.logTail(container.id(), LOG_TAIL_LINES), credentials);
            removeQuietly(container.id());
            throw new ProvisionException(what(engine, agent) + " not ready in " + settings.readyTimeout().toSeconds() + "s ("
                    + state + "; " + redact(e.getMessage(), credentials) + "); last log lines: " + oneLine(tail)
                    + "; container removed", true, null);
        } catch (FeatureUnavailableException e) {
            removeQuietly(container.id());
            throw new ProvisionException(e.getMessage() + "; container removed", false, null);
        } catch (InterruptedException e) {
            removeQuietly(container.id());
            Thread.currentThread().interrupt();
            throw new ProvisionException(what(engine, agent) + " interrupted while starting; container removed", true, null);
        } catch (Exception | Error e) {
            removeQuietly(container.id());
            throw new ProvisionException(what(engine, agent) + " setup failed: " + redact(String.valueOf(e.getMessage()), credentials)
                    + "; container removed", true, null);
        } finally {
            inFlight.remove(container.id());
        }
    }

    /**
     * Containers started but not yet handed to a cache (still becoming ready). The janitor must not
     * take them; callers put the returned instance in their cache before this set forgets it.
     */
    public Set<String> inFlight() {
        return Set.copyOf(inFlight);
    }

    /** Activates more features on a live service without a teardown; returns the updated instance. */
    public ServiceInstance activate(Engine engine, ServiceInstance instance, Collection<String> features) throws ProvisionException {
        requireAllowed(engine, features);
        Set<String> missing = new TreeSet<>(features);
        missing.removeAll(instance.features());
        if (missing.isEmpty()) {
            return instance;
        }
        for (String feature : missing) {
            try {
                engine.activate(feature, exec(instance.containerId()), instance.credentials(), instance.image());
            } catch (FeatureUnavailableException e) {
                throw new ProvisionException(e.getMessage(), false, null);
            } catch (Exception e) {
                throw new ProvisionException(engine.name() + " feature '" + feature + "' could not be activated for "
                        + instance.containerName() + ": " + redact(String.valueOf(e.getMessage()), instance.credentials()), true, null);
            }
        }
        return instance.withFeatures(missing);
    }

    /** The container runs and the service answers on the agent's own credential. One probe, no retries. */
    public boolean isLive(Engine engine, ServiceInstance instance) {
        try {
            if (!runtime.isRunning(instance.containerId())) {
                return false;
            }
            engine.liveness().check(ProbeTarget.of(instance.endpoint(), instance.credentials()));
            return true;
        } catch (Exception e) {
            log.info("{} sandbox {} failed its liveness check: {}", instance.service(), instance.containerName(),
                    redact(String.valueOf(e.getMessage()), instance.credentials()));
            return false;
        }
    }

    /** Removes the container; never throws (removal of a missing container is success). */
    public void removeQuietly(String containerId) {
        try {
            runtime.remove(containerId);
        } catch (RuntimeException e) {
            log.warn("could not remove sandbox container {}: {} (the janitor will retry)", containerId, e.getMessage());
        }
    }

    private ProbeTarget target(String containerId, Endpoint endpoint, Credentials credentials) {
        return new ProbeTarget(endpoint, credentials, () -> runtime.isRunning(containerId),
                () -> redact(runtime.logTail(containerId, LOG_TAIL_LINES), credentials));
    }

    private ContainerExec exec(String containerId) {
        return (command, env) -> runtime.exec(containerId, command, env);
    }

    private static void requireAllowed(Engine engine, Collection<String> features) {
        for (String feature : features) {
            if (!engine.features().contains(feature)) {
                throw new IllegalArgumentException(engine.name() + " feature '" + feature + "' is not on the allowlist " + engine.features());
            }
        }
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
