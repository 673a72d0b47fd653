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
import io.roboco.sandbox.settings.SandboxRecord;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the lifecycle of every agent's sandbox set: whole-set provisioning in parallel on first
 * call, a cache re-verified live before it is trusted, features activated in place, growth of the
 * project's set without touching running services, and release. Calls for one agent are
 * serialized; different agents proceed in parallel (no global lock). Every start of new containers
 * is first put to the {@link Admission} (quotas, capacity, the sandbox record); an entry past its
 * expiry is never served.
 */
public final class SandboxManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SandboxManager.class);

    private final EngineRegistry registry;
    private final ServiceProvisioner provisioner;
    private final Clock clock;
    private final AgentLocks locks = new AgentLocks();
    private final LiveSandboxes live;
    /** The ledger owner of a named sandbox's containers while they are made: this prefix and the sandbox id. */
    public static final String NAMED_KEY = "named:";

    private final ContainerLedger ledger;
    private final SetOperations sets;
    private final Leftovers leftovers;
    private final WarmPool pool;
    private final Admission admission;
    /** Per agent, the id of its set that expired, until a call makes the next one (that call's answer says so). */
    private final ConcurrentHashMap<String, String> expiredSets = new ConcurrentHashMap<>();
    /** Provisioning calls under way; shut at shutdown ({@link #drain}). */
    private final ActiveCalls calls = new ActiveCalls();

    public SandboxManager(EngineRegistry registry, ServiceProvisioner provisioner, Clock clock) {
        this(registry, provisioner, clock, null);
    }

    /** With a warm pool that first-time provisioning claims from before starting a container cold; null for none. */
    public SandboxManager(EngineRegistry registry, ServiceProvisioner provisioner, Clock clock, WarmPool pool) {
        this(registry, provisioner, clock, pool, Admission.unlimited());
    }

    /** With the {@link Admission} every start of new containers is first put to (quotas, capacity, the sandbox record). */
    public SandboxManager(
            EngineRegistry registry, ServiceProvisioner provisioner, Clock clock, WarmPool pool, Admission admission) {
        this(registry, provisioner, clock, pool, admission, new LiveSandboxes());
    }

    /**
     * With the registry of live sandboxes it shares with the {@link Admission} (the sandbox book): made through
     * {@link LiveSandboxes#manager}, so the registry is no part of the embedding surface.
     */
    SandboxManager(
            EngineRegistry registry,
            ServiceProvisioner provisioner,
            Clock clock,
            WarmPool pool,
            Admission admission,
            LiveSandboxes live) {
        this.admission = Objects.requireNonNull(admission, "admission");
        this.live = Objects.requireNonNull(live, "live");
        this.registry = registry;
        this.provisioner = provisioner;
        this.clock = clock;
        this.pool = pool;
        this.ledger = provisioner.ledger();
        this.sets = new SetOperations(registry, provisioner, pool);
        this.leftovers = new Leftovers(this::listInstanceContainers, sets.workers());
    }

    /** The agent's sandbox for the requested services: from the live-verified cache, or freshly provisioned. */
    public EnsureOutcome ensure(SandboxRequest request) throws InterruptedException {
        return ensure(request, null);
    }

    /**
     * {@link #ensure(SandboxRequest)} with labels for the agent's sandbox record (already validated; null keeps the
     * record's labels).
     */
    public EnsureOutcome ensure(SandboxRequest request, Map<String, String> labels) throws InterruptedException {
        if (!calls.enter()) {
            return new EnsureOutcome.Failed("the sandbox service is stopping; try again in a few seconds", true);
        }
        try {
            return ensureEntered(request, labels);
        } finally {
            calls.exit();
        }
    }

    private EnsureOutcome ensureEntered(SandboxRequest request, Map<String, String> labels)
            throws InterruptedException {
        ReentrantLock lock = locks.lockFor(request.agent());
        lock.lockInterruptibly();
        Admission.Decision.Admitted admitted = null;
        AgentSandbox growing = null;
        try {
            expireCached(request.agent());
            AgentSandbox entry = liveEntry(request);
            AtomicInteger cold = new AtomicInteger();
            boolean created = false;
            if (entry == null) {
                Admission.Decision decision = admission.admit(
                        request, labels, null, request.services().size());
                if (decision instanceof Admission.Decision.Denied denied) {
                    return new EnsureOutcome.Denied(denied);
                }
                admitted = (Admission.Decision.Admitted) decision;
                // The agent's leftovers (a previous process's containers, listed once by this process) are removed
                // after the new set is ready, off the answer's path: new containers have fresh names and ports, so
                // nothing needs to go first, and what this process holds is kept.
                CompletableFuture<List<ContainerState>> previous = leftovers.of(request.agent());
                Map<String, ServiceInstance> started = Map.of();
                try {
                    started = startAll(request, request.services(), cold);
                } finally {
                    Map<String, ServiceInstance> keep = started;
                    previous.thenAcceptAsync(listed -> removeLeftovers(request.agent(), listed, keep), sets.workers());
                }
                entry = new AgentSandbox(
                        request.agent(),
                        request.projectId(),
                        started,
                        clock.instant(),
                        admitted.sandboxId(),
                        admitted.expires());
                live.putSet(entry);
                hold(request.agent(), started);
                admission.settled(admitted, entry);
                admitted = null;
                created = true;
            } else {
                Set<String> have = entry.services().keySet();
                List<String> missing = request.services().stream()
                        .filter(s -> !have.contains(s))
                        .toList();
                if (!missing.isEmpty()) {
                    Admission.Decision decision = admission.admit(request, labels, entry, missing.size());
                    if (decision instanceof Admission.Decision.Denied denied) {
                        return new EnsureOutcome.Denied(denied);
                    }
                    admitted = (Admission.Decision.Admitted) decision;
                    growing = entry;
                    Map<String, ServiceInstance> added = startAll(request, missing, cold);
                    entry = entry.with(added);
                    live.putSet(entry);
                    hold(request.agent(), added);
                    admission.settled(admitted, entry);
                    admitted = null;
                    created = true;
                }
            }
            entry = activateRequested(request, entry);
            if (!created) {
                entry = served(request, labels, entry);
            }
            String expiredPrevious = created ? expiredSets.remove(request.agent()) : null;
            EnsureOutcome.Path path = !created
                    ? EnsureOutcome.Path.HIT
                    : cold.get() > 0 ? EnsureOutcome.Path.COLD : EnsureOutcome.Path.POOL;
            List<ServiceInstance> granted = entry.select(request.asked());
            if (log.isDebugEnabled()) {
                // Still inside the agent's lock: the moment the grant is decided (ReleaseRaceIT times grants by this
                // line).
                log.debug(
                        "agent {} granted {} ({})",
                        request.agent(),
                        granted.stream().map(ServiceInstance::containerName).toList(),
                        created ? "provisioned" : "cache hit");
            }
            return new EnsureOutcome.Ready(granted, !created, path, entry.id(), entry.expires(), expiredPrevious);
        } catch (ProvisionException e) {
            if (admitted != null) {
                admission.failed(admitted, growing);
            }
            return new EnsureOutcome.Failed(
                    e.getMessage(), e.retryable(), e.queue().orElse(null));
        } catch (RuntimeException | InterruptedException e) {
            if (admitted != null) {
                admission.failed(admitted, growing);
            }
            throw e;
        } finally {
            // Everything this call started is now held or removed (calls for one agent are serialized); a container
            // still pending was neither, so it is the janitor's once the grace window has passed.
            ledger.strikeAll(ContainerLedger.Reason.PENDING, request.agent());
            lock.unlock();
        }
    }

    /**
     * Starts the request's asked-for services as a new set that is not cached (a named sandbox: its credentials are
     * answered once and never kept). Each ready container is pending in the ledger under {@code key}; {@code adopt} is
     * told the started set and moves its containers to their lasting reason (the sandbox record's) before this returns,
     * so the janitor never sees them unowned. All or nothing.
     *
     * @param key a ledger owner unique to this set (e.g. {@code named:<sandbox id>})
     */
    public Map<String, ServiceInstance> provisionDetached(
            SandboxRequest request, String key, Consumer<Map<String, ServiceInstance>> adopt)
            throws ProvisionException, InterruptedException {
        if (!calls.enter()) {
            throw new ProvisionException("the sandbox service is stopping; try again in a few seconds", true, null);
        }
        try {
            Map<String, ServiceInstance> started = sets.startAll(
                    request,
                    request.asked(),
                    id -> ledger.move(id, ContainerLedger.Reason.PENDING, key),
                    new AtomicInteger());
            try {
                adopt.accept(started);
            } catch (RuntimeException e) {
                sets.removeAll(started.values().stream()
                        .map(ServiceInstance::containerId)
                        .toList());
                throw e;
            }
            return started;
        } finally {
            ledger.strikeAll(ContainerLedger.Reason.PENDING, key);
            calls.exit();
        }
    }

    /** Removes containers (of a detached set) in parallel; best-effort. */
    public void removeContainers(Collection<String> ids) throws InterruptedException {
        sets.removeAll(ids);
    }

    /**
     * Ends sandbox {@code record}, whatever its kind, if {@code commit} (run under the sandbox's lock,
     * {@link #lockKey}: e.g. the store's conditional delete) says so: it leaves the registry of live sandboxes and its
     * containers (those it held and those its record names) are removed. With {@code expired} its owner's next verb-set
     * call is told that set had expired. Returns what {@code commit} said.
     */
    public boolean endIf(SandboxRecord record, BooleanSupplier commit, boolean expired) throws InterruptedException {
        ReentrantLock lock = locks.lockFor(lockKey(record));
        lock.lockInterruptibly();
        try {
            if (!commit.getAsBoolean()) {
                return false;
            }
            Set<String> ids = new LinkedHashSet<>(record.containerIds());
            live.forget(record.id()).ifPresent(ended -> ids.addAll(ended.containerIds()));
            sets.removeAll(ids);
            if (expired && record.kind().ownersLock()) {
                expiredSets.put(record.owner(), record.id());
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The lock that orders the work on sandbox {@code record}: a verb set's is its owner's (its {@code request_sandbox}
     * and release take it), any other sandbox's its own ({@code named:<id>}, which its data operations and its end take).
     */
    public static String lockKey(SandboxRecord record) {
        return record.kind().ownersLock() ? record.owner() : NAMED_KEY + record.id();
    }

    /** Removes the agent's containers and cache entry. Idempotent; returns how many containers were removed. */
    public int release(String agent) throws InterruptedException {
        ReentrantLock lock = locks.lockFor(agent);
        lock.lockInterruptibly();
        try {
            AgentSandbox entry = live.removeSet(agent);
            Set<String> ids = new HashSet<>();
            if (entry != null) {
                ids.addAll(entry.containerIds());
                admission.ended(entry, "released");
            }
            // The agent's label also marks its named sandboxes' containers: those end with their own records, not here.
            listAgentContainers(agent).stream()
                    .filter(c -> !ofNamedSandbox(c.id()))
                    .forEach(c -> ids.add(c.id()));
            sets.removeAll(ids);
            return ids.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes back sandbox {@code record}, whatever its kind, that a previous process of this instance handed out
     * (re-adoption at start, before the first call), with {@code services} as the check opened them (same credentials,
     * the liveness sessions the check opened): entered in the registry of live sandboxes as if just provisioned, so its
     * owner's next call is answered with the same credentials, and its containers kept in the ledger for whoever orders
     * its work ({@link #lockKey}): a verb set's held for its owner, any other sandbox's behind its record.
     */
    public void adopt(SandboxRecord record, Map<String, ServiceInstance> services) throws InterruptedException {
        ReentrantLock lock = locks.lockFor(lockKey(record));
        lock.lockInterruptibly();
        try {
            live.hold(record, services);
            boolean owners = record.kind().ownersLock();
            ContainerLedger.Reason reason = owners ? ContainerLedger.Reason.HELD : ContainerLedger.Reason.RECORDED;
            String holder = owners ? record.owner() : record.id();
            record.containerIds().forEach(id -> ledger.enter(id, reason, holder));
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
            return work.run(live.set(agent));
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code work} under the lock of {@code key} (an agent slug, or another owner key such as a named sandbox's). */
    public boolean underLock(String key, BooleanSupplier work) throws InterruptedException {
        ReentrantLock lock = locks.lockFor(key);
        lock.lockInterruptibly();
        try {
            return work.getAsBoolean();
        } finally {
            lock.unlock();
        }
    }

    /** The cached sandbox of one agent, as last verified (no live check). */
    public Optional<AgentSandbox> find(String agent) {
        return live.set(agent);
    }

    /** Every cached sandbox set. */
    public List<AgentSandbox> live() {
        return live.sets();
    }

    /**
     * The services (and credentials) of sandbox {@code sandboxId}, whatever its kind, when this process holds them: the
     * one registry of live sandboxes' answer (a verb set's, a named sandbox's made since the start or re-adopted).
     */
    public Optional<Map<String, ServiceInstance>> services(String sandboxId) {
        return live.services(sandboxId);
    }

    /** The set held for sandbox {@code sandboxId}, whatever its kind (no live check). */
    public Optional<AgentSandbox> held(String sandboxId) {
        return live.find(sandboxId).map(LiveSandboxes.Live::set);
    }

    /** Every container of every sandbox this process holds, verb sets and named ones. */
    public Set<String> heldContainerIds() {
        return live.containerIds();
    }

    /** Every container this process owns and why (the provisioner's ledger): what the janitor asks. */
    public ContainerLedger ledger() {
        return ledger;
    }

    /**
     * Shutdown, first step: no new provisioning starts (a call from now on fails retryably), and the calls under way
     * are waited for, up to {@code timeout}, so that each ends with its containers held or removed. Returns how many
     * calls were still under way when the wait ended.
     */
    public int drain(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int calling = calls.shutAndAwait(timeout);
        // A call interrupted while waiting for its starts leaves them running on the workers; they end on their own.
        int starting = sets.awaitStarts(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        return calling + starting;
    }

    /** True once {@link #drain} has begun: no new provisioning starts. */
    public boolean draining() {
        return calls.shut();
    }

    /**
     * Shutdown, once {@link #drain} and the warm pool's close are done: removes every container the ledger still
     * holds as in flight, pending or claimed (started for a call that will not be answered, or a refill that did not
     * finish), so none outlives the process unaccounted for. Returns how many were removed.
     */
    public int removeUnsettled() {
        Set<String> unsettled = new HashSet<>();
        for (ContainerLedger.Reason reason : List.of(
                ContainerLedger.Reason.IN_FLIGHT, ContainerLedger.Reason.PENDING, ContainerLedger.Reason.CLAIMED)) {
            unsettled.addAll(ledger.ids(reason));
        }
        if (!unsettled.isEmpty()) {
            log.info(
                    "removing {} sandbox container(s) that were still being started or claimed at shutdown",
                    unsettled.size());
            unsettled.forEach(provisioner::removeQuietly);
        }
        return unsettled.size();
    }

    /** The warm pool, when one is configured. */
    public Optional<WarmPool> pool() {
        return Optional.ofNullable(pool);
    }

    /** Re-verifies one agent's cached services now (for pages); empty when the agent has none. */
    public Map<String, Boolean> verify(String agent) {
        AgentSandbox entry = live.set(agent).orElse(null);
        if (entry == null) {
            return Map.of();
        }
        Map<String, Boolean> result = new TreeMap<>();
        entry.services()
                .forEach((name, instance) -> result.put(name, provisioner.isLive(registry.require(name), instance)));
        return result;
    }

    public ServiceProvisioner provisioner() {
        return provisioner;
    }

    /** The engines this manager provisions: what the data operations ask which engine offers a feature. */
    public EngineRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        sets.close();
        provisioner.dropTemplateVolumes();
    }

    // --- internals -------------------------------------------------------------------------------

    /** The cached entry if it belongs to the request's project and every service is live; else evicts it. */
    private AgentSandbox liveEntry(SandboxRequest request) throws InterruptedException {
        AgentSandbox entry = live.set(request.agent()).orElse(null);
        if (entry == null) {
            return null;
        }
        if (!entry.project().equals(request.projectId())) {
            log.info(
                    "agent {} moved from project {} to {}; replacing its sandbox",
                    request.agent(),
                    entry.project(),
                    request.projectId());
            evict(entry, "replaced: the agent moved to project " + request.projectId());
            return null;
        }
        String moved = movedImage(request, entry);
        if (moved != null) {
            log.info(
                    "agent {}'s project {} now runs {}; replacing its sandbox",
                    request.agent(),
                    request.projectId(),
                    moved);
            evict(entry, "replaced: the project's image changed");
            return null;
        }
        long t0 = System.nanoTime();
        boolean live = sets.allLive(entry.services().values());
        if (log.isDebugEnabled()) {
            log.debug(
                    "re-verified {} service(s) of agent {} in {} us: {}",
                    entry.services().size(),
                    request.agent(),
                    (System.nanoTime() - t0) / 1000,
                    live ? "live" : "not live");
        }
        if (!live) {
            log.info(
                    "sandbox of agent {} failed re-verification; evicting and re-provisioning the whole set",
                    request.agent());
            evict(entry, "replaced: a service failed re-verification");
            return null;
        }
        return entry;
    }

    /** The image a cached service should run now but does not (the project's major or the server's image changed), or null. */
    private String movedImage(SandboxRequest request, AgentSandbox entry) {
        for (ServiceInstance instance : entry.services().values()) {
            if (!request.services().contains(instance.service())) {
                continue; // no longer in the project's set: kept as it is, never handed out again
            }
            String wanted = request.plan(instance.service()).image().image();
            if (!wanted.equals(instance.image())) {
                return instance.service() + " image " + wanted;
            }
        }
        return null;
    }

    private void evict(AgentSandbox entry, String why) throws InterruptedException {
        live.removeSet(entry);
        sets.removeAll(entry.containerIds());
        admission.ended(entry, why);
    }

    /** A cached set past its expiry is never served: it is removed, and the next set's answer says so. */
    private void expireCached(String agent) throws InterruptedException {
        AgentSandbox entry = live.set(agent).orElse(null);
        if (entry != null && entry.expiredAt(clock.instant())) {
            log.info(
                    "sandbox {} of agent {} expired at {}; removing it and provisioning a fresh set",
                    entry.id(),
                    agent,
                    entry.expires());
            evict(entry, "expired");
            expiredSets.put(agent, entry.id());
        }
    }

    private AgentSandbox served(SandboxRequest request, Map<String, String> labels, AgentSandbox entry) {
        AgentSandbox renewed = admission.served(request, labels, entry);
        if (renewed != entry) {
            live.replaceSet(entry, renewed);
        }
        return renewed;
    }

    /** Starts the services; each ready container is pending in the ledger until the set is held or this call ends. */
    private Map<String, ServiceInstance> startAll(SandboxRequest request, List<String> services, AtomicInteger cold)
            throws ProvisionException, InterruptedException {
        return sets.startAll(
                request, services, id -> ledger.move(id, ContainerLedger.Reason.PENDING, request.agent()), cold);
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
        live.putSet(next);
        return next;
    }

    /** The set is cached: its new containers are held for the agent. */
    private void hold(String agent, Map<String, ServiceInstance> cached) {
        ledger.moveAll(
                cached.values().stream().map(ServiceInstance::containerId).toList(),
                ContainerLedger.Reason.HELD,
                agent);
    }

    private void removeLeftovers(String agent, List<ContainerState> listed, Map<String, ServiceInstance> keep) {
        Set<String> fresh = new HashSet<>();
        keep.values().forEach(i -> fresh.add(i.containerId()));
        List<String> leftovers = listed.stream()
                .map(ContainerState::id)
                .filter(id -> !fresh.contains(id) && !ledger.owns(id))
                .toList();
        if (!leftovers.isEmpty()) {
            log.info("removing {} leftover sandbox container(s) of agent {}", leftovers.size(), agent);
            leftovers.forEach(provisioner::removeQuietly);
        }
    }

    /** A container this process holds for a named sandbox (made, being made, or re-adopted), which a verb-set release leaves. */
    private boolean ofNamedSandbox(String containerId) {
        return ledger.entry(containerId)
                .filter(e -> e.reason() == ContainerLedger.Reason.RECORDED
                        || (e.owner() != null && e.owner().startsWith(NAMED_KEY)))
                .isPresent();
    }

    /** This instance's containers; throws when the runtime cannot list them (the next new set lists again). */
    private List<ContainerState> listInstanceContainers() {
        try {
            return provisioner
                    .runtime()
                    .list(SandboxLabels.ofInstance(provisioner.settings().instanceId()));
        } catch (RuntimeException e) {
            log.warn("could not list this instance's containers for leftovers: {}", e.getMessage());
            throw e;
        }
    }

    /** Listings of this instance's containers made for new sets' leftovers so far (tests). */
    long leftoverListings() {
        return leftovers.listings();
    }

    private List<ContainerState> listAgentContainers(String agent) {
        try {
            return provisioner
                    .runtime()
                    .list(SandboxLabels.ofAgent(provisioner.settings().instanceId(), agent));
        } catch (RuntimeException e) {
            log.warn("could not list containers of agent {}: {}", agent, e.getMessage());
            return List.of();
        }
    }
}
