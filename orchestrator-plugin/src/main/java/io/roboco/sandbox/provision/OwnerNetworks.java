package io.roboco.sandbox.provision;

import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.NetworkSpec;
import io.roboco.sandbox.runtime.NetworkState;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where sandbox containers sit in network mode ({@code network:<name>}), so that sandboxes of different owners cannot
 * reach one another and the plugin's admin work crosses no network an agent is on:
 * <ul>
 *   <li>each owner (an agent, or a CI job's {@code job:<name>}) has an <b>owner network</b> of its own,
 *   {@code <name>-<instance>-agent.<slug>} (or {@code -job.<name>}), internal (no route off the host). Every sandbox
 *   container of that owner joins it, and so does the owner's own container (attached by the orchestrator, or by the
 *   plugin when {@code ROBOCO_SANDBOX_AGENT_CONTAINER} names it): the agent reaches its sandboxes by container name
 *   there, and nobody else is on it;</li>
 *   <li>every sandbox container of this instance also joins one <b>back network</b>, {@code <name>-<instance>-sandboxes},
 *   with inter-container traffic off, where its port is published on the Docker host's 127.0.0.1: the plugin's only
 *   way in (readiness, admin work, liveness, inspection). No agent's container is on it, and no sandbox container can
 *   send anything to another through it (nor spoof: every capability that could is dropped).</li>
 * </ul>
 * An owner network being internal is what keeps the published port on the back network: Docker routes a container
 * (and its published ports) through a network that is not internal.
 *
 * <p>An owner network is made when its owner's first sandbox container starts and removed, with whatever else is
 * attached to it disconnected, when its last one goes ({@link #releaseAfterRemoval}); the janitor removes any left
 * over ({@link #sweep}). Both carry the labels containers carry ({@code roboco.sandbox=1}, instance, agent, created).
 * Within this process, making, joining and releasing one owner's network are serialized.
 */
public final class OwnerNetworks {
    private static final Logger log = LoggerFactory.getLogger(OwnerNetworks.class);
    /** Label on our networks: {@value #BACK} or {@value #OWNER}. */
    public static final String ROLE = "roboco.sandbox.network";

    public static final String BACK = "back";
    public static final String OWNER = "owner";

    private final ContainerRuntime runtime;
    private final NetworkMode.Named mode;
    private final String instanceId;
    private final Clock clock;
    private final Object[] locks = new Object[64];
    private volatile boolean backMade;

    OwnerNetworks(ContainerRuntime runtime, NetworkMode.Named mode, String instanceId, Clock clock) {
        this.runtime = runtime;
        this.mode = mode;
        this.instanceId = instanceId;
        this.clock = clock;
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new Object();
        }
    }

    /** This instance's back network's name. */
    public String back() {
        return mode.network() + "-" + safe(instanceId) + "-sandboxes";
    }

    /** The owner network of {@code owner} (an agent slug, or {@code job:<name>}). */
    public String of(String owner) {
        String key = owner.startsWith("job:") ? "job." + safe(owner.substring(4)) : "agent." + safe(owner);
        return mode.network() + "-" + safe(instanceId) + "-" + key;
    }

    /**
     * Starts {@code request} (whose network is the configured {@link NetworkMode.Named}) on the back network and, unless
     * {@code owner} is null (a warm-pool container, which joins its owner's network at claim), on its owner's network,
     * making either when missing. A start that finds its network gone meanwhile (the janitor removed an empty one) makes it
     * again and starts once more.
     */
    StartedContainer start(RunRequest request, String owner) {
        for (int attempt = 1; ; attempt++) {
            try {
                if (owner == null) {
                    ensureBack();
                    return runtime.start(with(request, null));
                }
                synchronized (lock(of(owner))) {
                    ensureBack();
                    String network = ensureOwner(owner);
                    StartedContainer started = runtime.start(with(request, network));
                    attachOwnersContainer(owner, network);
                    return started;
                }
            } catch (ContainerRuntimeException e) {
                if (attempt == 2 || !String.valueOf(e.getMessage()).contains("does not exist")) {
                    throw e;
                }
                backMade = false;
                log.info(
                        "a network of {} was gone when its container started ({}); making it again",
                        request.name(),
                        e.getMessage());
            }
        }
    }

    /** Joins a claimed warm-pool container to its new owner's network (made when missing). */
    void join(String containerId, String owner) {
        synchronized (lock(of(owner))) {
            String network = ensureOwner(owner);
            runtime.connect(network, containerId);
            attachOwnersContainer(owner, network);
        }
    }

    /**
     * After one of our containers was removed: each owner network it was on is removed when no sandbox container of this
     * instance remains on it (whatever else is attached, such as the agent's own container, is disconnected first). A
     * failure is logged; the janitor tries again.
     */
    void releaseAfterRemoval(ContainerState removed) {
        for (String network : removed.networks()) {
            if (!network.startsWith(mode.network() + "-" + safe(instanceId) + "-") || network.equals(back())) {
                continue;
            }
            try {
                synchronized (lock(network)) {
                    removeIfUnused(runtime, instanceId, network);
                }
            } catch (RuntimeException e) {
                log.warn(
                        "could not remove owner network {} after its last sandbox container went: {} (the janitor will retry)",
                        network,
                        e.getMessage());
            }
        }
    }

    /**
     * The janitor's part: removes every owner network of {@code instanceId} that no sandbox container of that instance is
     * on and that is older than {@code grace} (a network just made for a container about to start is left alone). Returns
     * the names removed; a network that could not be removed is logged and left for the next sweep.
     */
    public static List<String> sweep(ContainerRuntime runtime, String instanceId, Duration grace, Instant now) {
        List<String> removed = new ArrayList<>();
        for (NetworkState network :
                runtime.networks(Map.of(SandboxLabels.SANDBOX, "1", SandboxLabels.INSTANCE, instanceId, ROLE, OWNER))) {
            long created = createdOf(network);
            if (now.getEpochSecond() - created < grace.toSeconds()) {
                continue;
            }
            try {
                if (removeIfUnused(runtime, instanceId, network.name())) {
                    removed.add(network.name());
                }
            } catch (RuntimeException e) {
                log.warn(
                        "janitor could not remove owner network {}: {} (will retry next tick)",
                        network.name(),
                        e.getMessage());
            }
        }
        return removed;
    }

    /** Removes the owner network unless a sandbox container of this instance is on it; true when it is gone now. */
    private static boolean removeIfUnused(ContainerRuntime runtime, String instanceId, String name) {
        Optional<NetworkState> found = runtime.inspectNetwork(name);
        if (found.isEmpty()) {
            return false;
        }
        NetworkState network = found.get();
        if (!ours(network, instanceId)) {
            return false;
        }
        List<String> others = new ArrayList<>();
        for (String container : network.containers()) {
            Optional<ContainerState> state = runtime.inspect(container);
            if (state.isPresent()
                    && "1".equals(state.get().labels().get(SandboxLabels.SANDBOX))
                    && instanceId.equals(state.get().labels().get(SandboxLabels.INSTANCE))) {
                return false;
            }
            others.add(container);
        }
        for (String container : others) {
            runtime.disconnect(network.name(), container);
        }
        runtime.removeNetwork(network.name());
        log.debug("owner network {} removed ({} other container(s) disconnected)", network.name(), others.size());
        return true;
    }

    private void ensureBack() {
        if (backMade) {
            return;
        }
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(SandboxLabels.SANDBOX, "1");
        labels.put(SandboxLabels.INSTANCE, instanceId);
        labels.put(ROLE, BACK);
        require(runtime.ensureNetwork(new NetworkSpec(back(), labels, false, true)), BACK);
        backMade = true;
    }

    private String ensureOwner(String owner) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(SandboxLabels.SANDBOX, "1");
        labels.put(SandboxLabels.INSTANCE, instanceId);
        labels.put(SandboxLabels.AGENT, owner);
        labels.put(ROLE, OWNER);
        labels.put(SandboxLabels.CREATED, Long.toString(clock.instant().getEpochSecond()));
        NetworkState network = require(runtime.ensureNetwork(new NetworkSpec(of(owner), labels, true, false)), OWNER);
        if (!owner.equals(network.labels().get(SandboxLabels.AGENT))) {
            throw new ContainerRuntimeException("Docker network " + network.name() + " belongs to "
                    + network.labels().get(SandboxLabels.AGENT) + ", not " + owner + "; remove it (docker network rm "
                    + network.name() + ")");
        }
        return network.name();
    }

    /** A network of that name that is not ours (another instance's, or anyone's) is never joined. */
    private NetworkState require(NetworkState network, String role) {
        if (!ours(network, instanceId) || !role.equals(network.labels().get(ROLE))) {
            throw new ContainerRuntimeException(
                    "Docker network " + network.name() + " exists but was not made by this instance (labels "
                            + SandboxLabels.SANDBOX + "=1, " + SandboxLabels.INSTANCE + "=" + instanceId + ", " + ROLE
                            + "=" + role
                            + "); no sandbox joins it: remove or rename it (docker network rm " + network.name() + ")");
        }
        return network;
    }

    /** The container {@code ROBOCO_SANDBOX_AGENT_CONTAINER} names for an agent owner, attached to its network; none for a job. */
    private void attachOwnersContainer(String owner, String network) {
        Optional<String> container = mode.agentContainer(owner);
        if (container.isEmpty()) {
            return;
        }
        if (runtime.inspect(container.get()).isEmpty()) {
            log.info(
                    "agent {}'s container {} does not exist (yet); it was not attached to {}",
                    owner,
                    container.get(),
                    network);
            return;
        }
        runtime.connect(network, container.get());
    }

    private RunRequest with(RunRequest request, String ownerNetwork) {
        return new RunRequest(
                request.name(),
                request.spec(),
                request.labels(),
                request.limits(),
                new NetworkMode.Isolated(back(), ownerNetwork),
                request.capabilities());
    }

    /** One of a fixed set of locks, by network name: one owner's network work is serialized, most others' are not. */
    private Object lock(String network) {
        return locks[Math.floorMod(network.hashCode(), locks.length)];
    }

    private static boolean ours(NetworkState network, String instanceId) {
        return "1".equals(network.labels().get(SandboxLabels.SANDBOX))
                && instanceId.equals(network.labels().get(SandboxLabels.INSTANCE));
    }

    private static long createdOf(NetworkState network) {
        try {
            return Long.parseLong(network.labels().getOrDefault(SandboxLabels.CREATED, "0"));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String safe(String s) {
        return Names.inDockerName(s);
    }
}
