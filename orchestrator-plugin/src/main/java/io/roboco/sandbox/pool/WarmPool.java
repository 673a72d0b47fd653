package io.roboco.sandbox.pool;

import io.roboco.sandbox.engine.ClaimSession;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.provision.ImageChoice;
import io.roboco.sandbox.provision.ProvisionException;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServicePlan;
import io.roboco.sandbox.provision.ServiceProvisioner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Per-image pools (one per engine major a size names, see {@link PoolSizes}) of started, ready containers that hold no agent credential. A claim takes one and
 * makes the agent's user (and database) in it right then ({@link ServiceProvisioner#claim}), so no two
 * agents share a credential and nothing of the pool's own setup reaches an agent; the pool refills in
 * the background, one container at a time per engine, and a claim never waits for a refill (an empty
 * pool answers empty and the caller starts a container cold).
 *
 * <p>Pool containers carry {@code roboco.sandbox.pool=1} and agent/project {@code -}. Docker labels are
 * fixed at creation, so a claimed container keeps them: the manager's cache entry (not the labels) says
 * whose it is, release removes it by id, and after a restart it is an orphan the janitor sweeps once the
 * grace window has passed (its credentials died with the process that made them).
 */
public final class WarmPool implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WarmPool.class);
    static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(5);
    /** How long {@link #close} lets a refill under way finish. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(20);

    private final EngineRegistry registry;
    private final ServiceProvisioner provisioner;
    private final PoolSizes sizes;
    private final ScheduledExecutorService refiller;
    /** A ready container and what its claim holds open (null: nothing). */
    private record Pooled(ServiceInstance instance, ClaimSession session) {
    }

    /** Per pool key ({@link ImageChoice#poolKey}): what the pool keeps, its ready containers, its start in progress. */
    private final Map<String, ImageChoice> choices = new ConcurrentHashMap<>();
    private final Map<String, Integer> targets = new ConcurrentHashMap<>();
    private final Map<String, ConcurrentLinkedDeque<Pooled>> idle = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> starting = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Asked before each start: a release action when a container may start (capacity), or empty when not now. */
    private volatile java.util.function.Supplier<Optional<Runnable>> permits = () -> Optional.of(() -> { });
    /** Pool keys whose first fill has been logged. */
    private final Set<String> filled = ConcurrentHashMap.newKeySet();
    private volatile PoolJournal journal = PoolJournal.NONE;
    /** On close, leave the idle containers running for the next process to re-adopt ({@link #keepIdleOnClose}). */
    private volatile boolean keepIdle;

    public WarmPool(EngineRegistry registry, ServiceProvisioner provisioner, PoolSizes sizes) {
        this(registry, provisioner, sizes, refillExecutor());
    }

    /** One refill thread; a retry still waiting when the pool closes is dropped, not run. */
    private static ScheduledExecutorService refillExecutor() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sandbox-pool-refill");
            t.setDaemon(true);
            return t;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }

    /** With an injected refill executor (tests); the pool shuts it down on {@link #close}. */
    public WarmPool(EngineRegistry registry, ServiceProvisioner provisioner, PoolSizes sizes, ScheduledExecutorService refiller) {
        this.registry = registry;
        this.provisioner = provisioner;
        this.sizes = sizes;
        this.refiller = refiller;
        sizes.sizes().forEach((key, size) -> {
            Engine engine = registry.require(PoolSizes.engineOf(key));
            ImageChoice choice = provisioner.settings().choose(engine, PoolSizes.majorOf(key));
            choices.put(choice.poolKey(), choice);
            targets.merge(choice.poolKey(), size, Math::max);
            idle.put(choice.poolKey(), new ConcurrentLinkedDeque<>());
            starting.put(choice.poolKey(), new AtomicInteger());
        });
    }

    /**
     * Refills only with a permit from {@code next} (the server's capacity: pool containers count towards it);
     * without one the start is retried later. Set before {@link #start}.
     */
    public WarmPool limitedBy(java.util.function.Supplier<Optional<Runnable>> next) {
        this.permits = next;
        return this;
    }

    /** Begins filling every pool in the background. */
    public WarmPool start() {
        choices.keySet().forEach(this::refill);
        return this;
    }

    /**
     * A ready container of the plan's image made the agent's, with fresh credentials and the plan's features
     * activated; empty when that image's pool has none ready (or none is kept, or the one taken turned out broken and
     * was removed). Never waits for a container to start. The returned container is in the ledger as claimed until
     * the caller moves it.
     *
     * @throws ProvisionException when a feature is missing from the image (the cold path would fail the same way)
     */
    public Optional<ServiceInstance> claim(ServicePlan plan, String agent) throws ProvisionException {
        Engine engine = plan.engine();
        if (!plan.limitsOr(provisioner.settings().limits()).equals(provisioner.settings().limits())) {
            return Optional.empty();   // pool containers run the default caps; a project with its own limits starts cold
        }
        String key = plan.image().poolKey();
        ConcurrentLinkedDeque<Pooled> ready = idle.get(key);
        Pooled taken = ready == null || closed.get() ? null : ready.pollFirst();
        if (taken == null) {
            return Optional.empty();
        }
        ServiceInstance pooled = taken.instance();
        journal.left(pooled.containerId());
        try {
            return Optional.of(provisioner.claim(plan, pooled, taken.session(), agent));
        } catch (ProvisionException e) {
            if (!e.retryable()) {
                throw e;
            }
            log.warn("warm-pool {} container {} could not be claimed ({}); starting one cold instead", engine.name(),
                    pooled.containerName(), e.getMessage());
            return Optional.empty();
        } finally {
            refill(key);
        }
    }

    /** Ready, unclaimed containers of one pool size key ({@code postgres}, {@code postgres:17}) right now. */
    public int idle(String key) {
        Engine engine = registry.find(PoolSizes.engineOf(key)).orElse(null);
        if (engine == null) {
            return 0;
        }
        ConcurrentLinkedDeque<Pooled> ready = idle.get(provisioner.settings().choose(engine, PoolSizes.majorOf(key)).poolKey());
        return ready == null ? 0 : ready.size();
    }

    public PoolSizes sizes() {
        return sizes;
    }

    /** Tells {@code next} of every container that becomes idle in the pool or leaves it (set once, before {@link #start}). */
    public WarmPool journalTo(PoolJournal next) {
        this.journal = next;
        return this;
    }

    /** {@link #close} leaves the idle containers running (and journaled) for the next process to re-adopt. */
    public WarmPool keepIdleOnClose() {
        this.keepIdle = true;
        return this;
    }

    /**
     * Takes back an idle container a previous process of this instance kept in the pool (before {@link #start}). Taken
     * when its pool still exists (same engine and image) and is not full; the caller has checked that it answers.
     * Returns false when it was not taken (the caller removes it).
     */
    public boolean adopt(ServiceInstance pooled) {
        String key = pooled.service() + "@" + pooled.image();
        ConcurrentLinkedDeque<Pooled> ready = idle.get(key);
        if (closed.get() || ready == null || ready.size() >= targets.getOrDefault(key, 0)) {
            return false;
        }
        Engine engine = registry.require(pooled.service());
        provisioner.ledger().enter(pooled.containerId(), ContainerLedger.Reason.POOLED, key);
        ready.addLast(new Pooled(pooled, provisioner.openClaimSession(engine, pooled)));
        return true;
    }

    /**
     * Stops refilling and removes every idle container (or, after {@link #keepIdleOnClose}, leaves them for the next
     * process to re-adopt). Claimed containers belong to their agents' sandboxes. A refill
     * under way is let finish (not interrupted: an interrupted Docker call can leave a container the daemon made but
     * never named to us) and its container removed, waiting up to {@link #CLOSE_WAIT}; past that the refill is
     * interrupted, and whatever it started stays in the ledger for the caller to remove.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        refiller.shutdown();
        try {
            if (!refiller.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("warm pool refill still starting a container after {} s; interrupting it", CLOSE_WAIT.toSeconds());
                refiller.shutdownNow();
                refiller.awaitTermination(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int kept = 0;
        for (ConcurrentLinkedDeque<Pooled> ready : idle.values()) {
            for (Pooled pooled; (pooled = ready.pollFirst()) != null; ) {
                if (pooled.session() != null) {
                    pooled.session().close();
                }
                if (keepIdle) {
                    kept++;
                } else {
                    journal.left(pooled.instance().containerId());
                    provisioner.removeQuietly(pooled.instance().containerId());
                }
            }
        }
        if (kept > 0) {
            log.info("warm pool: {} idle container(s) kept for the next start to re-adopt", kept);
        }
    }

    // --- refill ----------------------------------------------------------------------------------

    /** Starts containers until idle + starting reaches the pool's size; one start at a time per pool. */
    private void refill(String key) {
        if (closed.get()) {
            return;
        }
        int target = targets.getOrDefault(key, 0);
        AtomicInteger inProgress = starting.get(key);
        if (target == 0 || inProgress == null || idle.get(key).size() + inProgress.get() >= target || !inProgress.compareAndSet(0, 1)) {
            return;
        }
        submit(() -> startOne(key), Duration.ZERO, inProgress);
    }

    private void startOne(String key) {
        AtomicInteger inProgress = starting.get(key);
        if (closed.get()) {
            inProgress.set(0);
            return;
        }
        ImageChoice choice = choices.get(key);
        Engine engine = registry.require(choice.engine());
        Optional<Runnable> permit = permits.get();
        if (permit.isEmpty()) {
            log.debug("warm pool: no capacity for another {} container; retrying in {} s", choice.describe(), RETRY_AFTER_FAILURE.toSeconds());
            submit(() -> startOne(key), RETRY_AFTER_FAILURE, inProgress);
            return;
        }
        ServiceInstance instance;
        try {
            instance = provisioner.startPooled(engine, choice);
        } catch (ProvisionException | RuntimeException e) {
            permit.get().run();
            log.warn("warm pool could not start a {} container ({}); retrying in {} s", choice.describe(), e.getMessage(),
                    RETRY_AFTER_FAILURE.toSeconds());
            submit(() -> startOne(key), RETRY_AFTER_FAILURE, inProgress);
            return;
        }
        provisioner.ledger().move(instance.containerId(), ContainerLedger.Reason.POOLED, key);
        permit.get().run();
        if (closed.get()) {
            provisioner.removeQuietly(instance.containerId());
            return;
        }
        journal.pooled(key, instance);   // before it can be claimed: the claim's left() then always follows it
        idle.get(key).addLast(new Pooled(instance, provisioner.openClaimSession(engine, instance)));
        inProgress.set(0);
        if (idle.get(key).size() >= targets.getOrDefault(key, 0) && filled.add(key)) {
            log.info("warm pool {} filled: {} ready container(s)", choice.describe(), idle.get(key).size());
        }
        refill(key);
    }

    private void submit(Runnable task, Duration delay, AtomicInteger inProgress) {
        try {
            refiller.schedule(() -> {
                try {
                    task.run();
                } catch (Throwable t) {
                    inProgress.set(0);
                    log.error("unexpected exception while refilling the warm pool", t);
                }
            }, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            inProgress.set(0); // closing
        }
    }
}
