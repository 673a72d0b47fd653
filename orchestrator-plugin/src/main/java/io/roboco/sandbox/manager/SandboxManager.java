package io.roboco.sandbox.manager;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.pool.WarmPool;
import io.roboco.sandbox.provision.ProvisionException;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServicePlan;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.runtime.ContainerState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Owns the lifecycle of every agent's sandbox set: whole-set provisioning in parallel on first
 * call, a cache re-verified live before it is trusted, features activated in place, growth of the
 * project's set without touching running services, and release. Calls for one agent are
 * serialized; different agents proceed in parallel (no global lock).
 */
public final class SandboxManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SandboxManager.class);

    private final EngineRegistry registry;
    private final ServiceProvisioner provisioner;
    private final Clock clock;
    private final AgentLocks locks = new AgentLocks();
    private final ConcurrentHashMap<String, AgentSandbox> cache = new ConcurrentHashMap<>();
    private final ContainerLedger ledger;
    private final SetOperations sets;
    private final WarmPool pool;

    public SandboxManager(EngineRegistry registry, ServiceProvisioner provisioner, Clock clock) {
        this(registry, provisioner, clock, null);
    }

    /** With a warm pool that first-time provisioning claims from before starting a container cold; null for none. */
    public SandboxManager(EngineRegistry registry, ServiceProvisioner provisioner, Clock clock, WarmPool pool) {
        this.registry = registry;
        this.provisioner = provisioner;
        this.clock = clock;
        this.pool = pool;
        this.ledger = provisioner.ledger();
        this.sets = new SetOperations(registry, provisioner, pool);
    }

    /** The agent's sandbox for the requested services: from the live-verified cache, or freshly provisioned. */
    public EnsureOutcome ensure(SandboxRequest request) throws InterruptedException {
        ReentrantLock lock = locks.lockFor(request.agent());
        lock.lockInterruptibly();
        try {
            AgentSandbox entry = liveEntry(request);
            boolean created = false;
            if (entry == null) {
                // The agent's leftovers (a previous process's containers) are listed while the new set starts and
                // removed after it is ready, off the answer's path: new containers have fresh names and ports, so
                // nothing needs to go first, and those the listing caught are kept. (A daemon list costs 5-50 ms on
                // a loaded 2-core machine: half a warm-pool claim.)
                CompletableFuture<List<ContainerState>> leftovers =
                        CompletableFuture.supplyAsync(() -> listAgentContainers(request.agent()), sets.workers());
                Map<String, ServiceInstance> started = Map.of();
                try {
                    started = startAll(request, request.services());
                } finally {
                    Map<String, ServiceInstance> keep = started;
                    leftovers.thenAcceptAsync(listed -> removeLeftovers(request.agent(), listed, keep), sets.workers());
                }
                entry = new AgentSandbox(request.agent(), request.projectId(), started, clock.instant());
                cache.put(request.agent(), entry);
                hold(request.agent(), started);
                created = true;
            } else {
                Set<String> have = entry.services().keySet();
                List<String> missing = request.services().stream().filter(s -> !have.contains(s)).toList();
                if (!missing.isEmpty()) {
                    Map<String, ServiceInstance> added = startAll(request, missing);
                    entry = entry.with(added);
                    cache.put(request.agent(), entry);
                    hold(request.agent(), added);
                    created = true;
                }
            }
            entry = activateRequested(request, entry);
            List<ServiceInstance> granted = entry.select(request.asked());
            if (log.isDebugEnabled()) {
                // Still inside the agent's lock: the moment the grant is decided (ReleaseRaceIT times grants by this line).
                log.debug("agent {} granted {} ({})", request.agent(), granted.stream().map(ServiceInstance::containerName).toList(),
                        created ? "provisioned" : "cache hit");
            }
            return new EnsureOutcome.Ready(granted, !created);
        } catch (ProvisionException e) {
            return new EnsureOutcome.Failed(e.getMessage(), e.retryable());
        } finally {
            // Everything this call started is now held or removed (calls for one agent are serialized); a container
            // still pending was neither, so it is the janitor's once the grace window has passed.
            ledger.strikeAll(ContainerLedger.Reason.PENDING, request.agent());
            lock.unlock();
        }
    }

    /** Removes the agent's containers and cache entry. Idempotent; returns how many containers were removed. */
    public int release(String agent) throws InterruptedException {
        ReentrantLock lock = locks.lockFor(agent);
        lock.lockInterruptibly();
        try {
            AgentSandbox entry = cache.remove(agent);
            Set<String> ids = new HashSet<>();
            if (entry != null) {
                ids.addAll(entry.containerIds());
            }
            listAgentContainers(agent).forEach(c -> ids.add(c.id()));
            sets.removeAll(ids);
            return ids.size();
        } finally {
            lock.unlock();
        }
    }

    /** Work on one agent's sandbox that must not overlap its ensure or release. */
    @FunctionalInterface
    public interface AgentWork<T> {
        T run(Optional<AgentSandbox> sandbox) throws Exception;
    }

    /** Runs {@code work} under the agent's lock (serialized with its request_sandbox and release), given its cached sandbox. */
    public <T> T withAgent(String agent, AgentWork<T> work) throws Exception {
        ReentrantLock lock = locks.lockFor(agent);
        lock.lockInterruptibly();
        try {
            return work.run(Optional.ofNullable(cache.get(agent)));
        } finally {
            lock.unlock();
        }
    }

    /** The cached sandbox of one agent, as last verified (no live check). */
    public Optional<AgentSandbox> find(String agent) {
        return Optional.ofNullable(cache.get(agent));
    }

    /** Every cached sandbox set. */
    public List<AgentSandbox> live() {
        return List.copyOf(cache.values());
    }

    /** Every container this process owns and why (the provisioner's ledger): what the janitor asks. */
    public ContainerLedger ledger() {
        return ledger;
    }

    /** The warm pool, when one is configured. */
    public Optional<WarmPool> pool() {
        return Optional.ofNullable(pool);
    }

    /** Re-verifies one agent's cached services now (for pages); empty when the agent has none. */
    public Map<String, Boolean> verify(String agent) {
        AgentSandbox entry = cache.get(agent);
        if (entry == null) {
            return Map.of();
        }
        Map<String, Boolean> result = new TreeMap<>();
        entry.services().forEach((name, instance) -> result.put(name, provisioner.isLive(registry.require(name), instance)));
        return result;
    }

    public ServiceProvisioner provisioner() {
        return provisioner;
    }

    @Override
    public void close() {
        sets.close();
    }

    // --- internals -------------------------------------------------------------------------------

    /** The cached entry if it belongs to the request's project and every service is live; else evicts it. */
    private AgentSandbox liveEntry(SandboxRequest request) throws InterruptedException {
        AgentSandbox entry = cache.get(request.agent());
        if (entry == null) {
            return null;
        }
        if (!entry.project().equals(request.projectId())) {
            log.info("agent {} moved from project {} to {}; replacing its sandbox", request.agent(), entry.project(), request.projectId());
            evict(entry);
            return null;
        }
        String moved = movedImage(request, entry);
        if (moved != null) {
            log.info("agent {}'s project {} now runs {}; replacing its sandbox", request.agent(), request.projectId(), moved);
            evict(entry);
            return null;
        }
        long t0 = System.nanoTime();
        boolean live = sets.allLive(entry.services().values());
        if (log.isDebugEnabled()) {
            log.debug("re-verified {} service(s) of agent {} in {} us: {}", entry.services().size(), request.agent(),
                    (System.nanoTime() - t0) / 1000, live ? "live" : "not live");
        }
        if (!live) {
            log.info("sandbox of agent {} failed re-verification; evicting and re-provisioning the whole set", request.agent());
            evict(entry);
            return null;
        }
        return entry;
    }


    /** The image a cached service should run now but does not (the project's major or the server's image changed), or null. */
    private String movedImage(SandboxRequest request, AgentSandbox entry) {
        for (ServiceInstance instance : entry.services().values()) {
            if (!request.services().contains(instance.service())) {
                continue;   // no longer in the project's set: kept as it is, never handed out again
            }
            String wanted = request.plan(instance.service()).image().image();
            if (!wanted.equals(instance.image())) {
                return instance.service() + " image " + wanted;
            }
        }
        return null;
    }

    private void evict(AgentSandbox entry) throws InterruptedException {
        cache.remove(entry.agent(), entry);
        sets.removeAll(entry.containerIds());
    }


    /** Starts the services; each ready container is pending in the ledger until the set is held or this call ends. */
    private Map<String, ServiceInstance> startAll(SandboxRequest request, List<String> services)
            throws ProvisionException, InterruptedException {
        return sets.startAll(request, services, id -> ledger.move(id, ContainerLedger.Reason.PENDING, request.agent()));
    }

    private AgentSandbox activateRequested(SandboxRequest request, AgentSandbox entry) throws ProvisionException {
        Map<String, ServiceInstance> updated = new TreeMap<>();
        for (String service : request.asked()) {
            ServiceInstance instance = entry.services().get(service);
            ServicePlan plan = request.plan(service);
            if (!instance.features().containsAll(plan.featureNames())) {
                updated.put(service, provisioner.activate(plan, instance));
            }
        }
        if (updated.isEmpty()) {
            return entry;
        }
        AgentSandbox next = entry.with(updated);
        cache.put(entry.agent(), next);
        return next;
    }

    /** The set is cached: its new containers are held for the agent. */
    private void hold(String agent, Map<String, ServiceInstance> cached) {
        ledger.moveAll(cached.values().stream().map(ServiceInstance::containerId).toList(), ContainerLedger.Reason.HELD, agent);
    }

    private void removeLeftovers(String agent, List<ContainerState> listed, Map<String, ServiceInstance> keep) {
        Set<String> fresh = new HashSet<>();
        keep.values().forEach(i -> fresh.add(i.containerId()));
        List<String> leftovers = listed.stream().map(ContainerState::id).filter(id -> !fresh.contains(id) && !ledger.owns(id)).toList();
        if (!leftovers.isEmpty()) {
            log.info("removing {} leftover sandbox container(s) of agent {}", leftovers.size(), agent);
            leftovers.forEach(provisioner::removeQuietly);
        }
    }

    private List<ContainerState> listAgentContainers(String agent) {
        try {
            return provisioner.runtime().list(SandboxLabels.ofAgent(provisioner.settings().instanceId(), agent));
        } catch (RuntimeException e) {
            log.warn("could not list containers of agent {}: {}", agent, e.getMessage());
            return List.of();
        }
    }

}
