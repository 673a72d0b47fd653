package io.roboco.sandbox.pool;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.provision.ImageChoice;
import io.roboco.sandbox.provision.ProvisionException;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServicePlan;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.runtime.Limits;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
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
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p><b>Seeded pools</b> ({@link PoolSizes#seeded}): for a project with a seed, containers already seeded (as a seeder
 * role, see {@link io.roboco.sandbox.engine.PoolSeeding}) so that its sandbox is still a claim with fresh credentials,
 * not a seed at request time. One pool per project and image, keyed by a digest of the seed ({@link SeedRecipe}); it
 * is made when the project is primed ({@link #prime}: saved, or the server started) or at its first claim, and a plan
 * presenting another seed discards it (its idle containers are removed, never served) and starts the new one. A claim
 * the seeded pool cannot serve yet takes an unseeded container of its image, seeded at claim time. A seed that fails in
 * the pool parks its pool for a minute (the claims in between are seeded at request time and report the failure).
 * Seeded containers are journaled like the others (under their seeded pool key), so a restart re-adopts them into the
 * project's seeded pool, which learns its recipe again when the project is primed or claims.
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
    /** Per pool key ({@link ImageChoice#poolKey}) of a configured size: what that pool keeps. */
    private final Map<String, ImageChoice> choices = new ConcurrentHashMap<>();

    private final Shelves shelves = new Shelves();
    private final SeededPools seeded;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Asked before each start: a release action when a container may start (capacity), or empty when not now. */
    private final Supplier<Optional<Runnable>> permits;
    /** Pool keys whose first fill has been logged. */
    private final Set<String> filled = ConcurrentHashMap.newKeySet();
    /** Told of every container that becomes idle in the pool or leaves it. */
    private final PoolJournal journal;

    /** Unlimited (every refill may start a container) and unjournaled. */
    public WarmPool(EngineRegistry registry, ServiceProvisioner provisioner, PoolSizes sizes) {
        this(registry, provisioner, sizes, refillExecutor());
    }

    /**
     * Refilling only with a permit from {@code permits} (the server's capacity: pool containers count towards it; without
     * one the start is retried later), and telling {@code journal} of every container that becomes idle or leaves.
     */
    public WarmPool(
            EngineRegistry registry,
            ServiceProvisioner provisioner,
            PoolSizes sizes,
            Supplier<Optional<Runnable>> permits,
            PoolJournal journal) {
        this(registry, provisioner, sizes, refillExecutor(), permits, journal);
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
    public WarmPool(
            EngineRegistry registry,
            ServiceProvisioner provisioner,
            PoolSizes sizes,
            ScheduledExecutorService refiller) {
        this(registry, provisioner, sizes, refiller, () -> Optional.of(() -> {}), PoolJournal.NONE);
    }

    /** Every collaborator injected: the refill executor (the pool shuts it down on {@link #close}), permits and journal. */
    public WarmPool(
            EngineRegistry registry,
            ServiceProvisioner provisioner,
            PoolSizes sizes,
            ScheduledExecutorService refiller,
            Supplier<Optional<Runnable>> permits,
            PoolJournal journal) {
        this.permits = permits;
        this.journal = journal;
        this.registry = registry;
        this.provisioner = provisioner;
        this.sizes = sizes;
        this.refiller = refiller;
        this.seeded = new SeededPools(sizes.seeded(), shelves, id -> {
            journal.left(id);
            provisioner.removeQuietly(id);
        });
        sizes.sizes().forEach((key, size) -> {
            Engine engine = registry.require(PoolSizes.engineOf(key));
            ImageChoice choice = provisioner.settings().choose(engine, PoolSizes.majorOf(key));
            choices.put(choice.poolKey(), choice);
            shelves.open(choice.poolKey(), size);
        });
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
        return claim(plan, agent, null);
    }

    /**
     * {@link #claim(ServicePlan, String)} for a sandbox of {@code project}: a seeded plan claims from the project's
     * seeded pool (made now when there is none, or when the seed changed). When that has nothing ready (or no seeded
     * pool is kept, or {@code project} is null), a seeded plan claims an unseeded container of its image, and the seed
     * is applied at claim time, as the agent, as on a cold start.
     */
    public Optional<ServiceInstance> claim(ServicePlan plan, String agent, String project) throws ProvisionException {
        Engine engine = plan.engine();
        Limits caps = plan.limitsOr(provisioner.settings().limits());
        boolean ownLimits = !caps.equals(provisioner.settings().limits());
        if (ownLimits && (plan.seed() == null || project == null || sizes.seeded() == 0)) {
            return Optional
                    .empty(); // unseeded pool containers run the default caps; a project with its own starts cold
        }
        if (closed.get()) {
            return Optional.empty();
        }
        Shelves.Pooled taken = null;
        String key = null;
        if (plan.seed() != null && project != null && sizes.seeded() > 0) {
            String seededKey = seeded.keyFor(plan, project);
            if (seededKey != null) {
                taken = shelves.take(seededKey, plan.featureNames());
                key = seededKey;
            }
            refill(
                    seededKey != null
                            ? seededKey
                            : SeedRecipe.of(project, plan).key()); // a pool made just now begins to fill
        }
        if (taken != null && !taken.instance().limits().equals(caps)) {
            // made before the project's limits changed (the seed's digest does not cover them): not this project's caps
            journal.left(taken.instance().containerId());
            provisioner.removeQuietly(taken.instance().containerId());
            refill(key);
            return Optional.empty();
        }
        if (taken == null && !ownLimits) {
            key = plan.image().poolKey();
            taken = shelves.take(key, plan.featureNames());
        }
        if (taken == null) {
            return Optional.empty();
        }
        ServiceInstance pooled = taken.instance();
        journal.left(pooled.containerId());
        try {
            return Optional.of(
                    taken.seeded()
                            ? provisioner.claimSeeded(plan, pooled, taken.session(), agent)
                            : provisioner.claim(plan, pooled, taken.session(), agent));
        } catch (ProvisionException e) {
            if (!e.retryable()) {
                throw e;
            }
            log.warn(
                    "warm-pool {} container {} could not be claimed ({}); starting one cold instead",
                    engine.name(),
                    pooled.containerName(),
                    e.getMessage());
            return Optional.empty();
        } finally {
            refill(key);
        }
    }

    /**
     * Starts filling the seeded pool a seeded {@code plan} of {@code project} claims from, before any claim (the project
     * was saved, or the server started): made now, or replaced when the seed changed, or given its recipe when it was
     * re-adopted. Returns false when no seeded pool serves such a plan (no seed, none kept, an engine that cannot seed
     * ahead). A project's seeded pool runs the project's caps ({@code sandbox_limits}), so a large seed fits.
     */
    public boolean prime(ServicePlan plan, String project) {
        if (closed.get() || plan.seed() == null || sizes.seeded() == 0) {
            return false;
        }
        String key = seeded.keyFor(plan, project);
        SeedRecipe recipe = SeedRecipe.of(project, plan);
        if (key == null && seeded.recipe(recipe.key()) == null) {
            return false;
        }
        refill(recipe.key());
        return true;
    }

    /**
     * Discards {@code project}'s seeded pools but those {@code current} plans claim from (none: all of them), so a
     * project saved without its seed, or on another major, stops holding ready containers (and capacity) for it.
     * Returns how many pools went.
     */
    public int retainSeeded(String project, Collection<ServicePlan> current) {
        Set<String> keep = new HashSet<>();
        current.stream()
                .filter(p -> p.seed() != null)
                .forEach(p -> keep.add(SeedRecipe.of(project, p).key()));
        return seeded.retain(Objects.requireNonNull(project, "project"), keep::contains);
    }

    /** Discards the seeded pools of every project not in {@code projects} (at start: projects deleted meanwhile). */
    public int retainSeededProjects(Set<String> projects) {
        return seeded.retain(null, key -> projects.contains(SeedRecipe.projectOf(key)));
    }

    /** Ready, unclaimed seeded containers of {@code project}'s pools right now. */
    public int idleSeeded(String project) {
        return seeded.idle(Objects.requireNonNull(project, "project"));
    }

    /** Ready, unclaimed seeded containers of every project right now. */
    public int idleSeeded() {
        return seeded.idle(null);
    }

    /** Ready, unclaimed containers of one pool size key ({@code postgres}, {@code postgres:17}) right now. */
    public int idle(String key) {
        Engine engine = registry.find(PoolSizes.engineOf(key)).orElse(null);
        if (engine == null) {
            return 0;
        }
        return shelves.size(
                provisioner.settings().choose(engine, PoolSizes.majorOf(key)).poolKey());
    }

    public PoolSizes sizes() {
        return sizes;
    }

    /**
     * Takes back an idle container a previous process of this instance left in the pool (it ended without closing the
     * pool: a crash, a {@code kill -9}), before {@link #start}. Taken
     * when its pool still exists (same engine and image) and is not full; the caller has checked that it answers.
     * Returns false when it was not taken (the caller removes it).
     */
    public boolean adopt(ServiceInstance pooled) {
        return adopt(pooled.service() + "@" + pooled.image(), pooled);
    }

    /**
     * {@link #adopt(ServiceInstance)} into the pool {@code poolKey} it was journaled under: an unseeded pool of its image,
     * or a seeded pool ({@code …#project:digest}), taken when seeded pools are kept and the project has no other seed's
     * pool; such a pool serves the project's claims that present the same seed.
     */
    public boolean adopt(String poolKey, ServiceInstance pooled) {
        String plain = pooled.service() + "@" + pooled.image();
        boolean seededKey = SeedRecipe.isSeededKey(poolKey);
        if (closed.get()
                || !(seededKey ? poolKey.startsWith(plain + "#") && seeded.adopt(poolKey) : poolKey.equals(plain))) {
            return false;
        }
        ConcurrentLinkedDeque<Shelves.Pooled> ready = shelves.ready(poolKey);
        if (ready == null || ready.size() >= shelves.target(poolKey)) {
            return false;
        }
        Engine engine = registry.require(pooled.service());
        provisioner.ledger().enter(pooled.containerId(), ContainerLedger.Reason.POOLED, poolKey);
        ready.addLast(new Shelves.Pooled(
                pooled,
                seededKey
                        ? provisioner.openSeededClaimSession(engine, pooled)
                        : provisioner.openClaimSession(engine, pooled),
                seededKey));
        return true;
    }

    /**
     * Stops refilling and removes every idle container: a graceful stop leaves none behind, whether or not a later
     * process of this instance ever starts to re-adopt it (only a crash leaves idle containers, journaled, for the next
     * start to take back or remove). Claimed containers belong to their agents' sandboxes. A refill
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
                log.warn(
                        "warm pool refill still starting a container after {} s; interrupting it",
                        CLOSE_WAIT.toSeconds());
                refiller.shutdownNow();
                refiller.awaitTermination(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int removed = 0;
        for (ConcurrentLinkedDeque<Shelves.Pooled> ready : shelves.all()) {
            for (Shelves.Pooled pooled; (pooled = ready.pollFirst()) != null; ) {
                pooled.closeSession();
                journal.left(pooled.instance().containerId());
                provisioner.removeQuietly(pooled.instance().containerId());
                removed++;
            }
        }
        if (removed > 0) {
            log.info("warm pool: {} idle container(s) removed", removed);
        }
    }

    // --- refill ----------------------------------------------------------------------------------

    /** Starts containers until idle + starting reaches the pool's size; one start at a time per pool. */
    private void refill(String key) {
        if (closed.get()) {
            return;
        }
        int target = shelves.target(key);
        AtomicInteger inProgress = shelves.starting(key);
        if (target == 0
                || inProgress == null
                || shelves.size(key) + inProgress.get() >= target
                || seeded.parked(key)
                || !inProgress.compareAndSet(0, 1)) {
            return;
        }
        submit(() -> startOne(key), Duration.ZERO, inProgress);
    }

    private void startOne(String key) {
        AtomicInteger inProgress = Optional.ofNullable(shelves.starting(key)).orElseGet(AtomicInteger::new);
        SeedRecipe recipe = seeded.recipe(key);
        ImageChoice choice = recipe != null ? recipe.plan().image() : choices.get(key);
        if (closed.get() || choice == null) {
            inProgress.set(0);
            return;
        }
        Engine engine = registry.require(choice.engine());
        Optional<Runnable> permit = permits.get();
        if (permit.isEmpty()) {
            log.debug(
                    "warm pool: no capacity for another {} container; retrying in {} s",
                    choice.describe(),
                    RETRY_AFTER_FAILURE.toSeconds());
            submit(() -> startOne(key), RETRY_AFTER_FAILURE, inProgress);
            return;
        }
        ServiceInstance instance;
        try {
            instance = recipe != null
                    ? provisioner.startSeededPooled(recipe.plan(), recipe.label())
                    : provisioner.startPooled(engine, choice);
        } catch (ProvisionException | RuntimeException e) {
            permit.get().run();
            if (recipe != null) {
                seeded.park(key);
                inProgress.set(0);
                log.warn(
                        "seeded warm pool for project {} could not make a container ({}); its sandboxes start cold, and the pool "
                                + "tries again on a request after {} s",
                        recipe.project(),
                        e.getMessage(),
                        SeededPools.RETRY_AFTER.toSeconds());
                return;
            }
            log.warn(
                    "warm pool could not start a {} container ({}); retrying in {} s",
                    choice.describe(),
                    e.getMessage(),
                    RETRY_AFTER_FAILURE.toSeconds());
            submit(() -> startOne(key), RETRY_AFTER_FAILURE, inProgress);
            return;
        }
        provisioner.ledger().move(instance.containerId(), ContainerLedger.Reason.POOLED, key);
        permit.get().run();
        ConcurrentLinkedDeque<Shelves.Pooled> ready = shelves.ready(key);
        if (closed.get() || ready == null || (recipe != null && seeded.recipe(key) == null)) {
            provisioner.removeQuietly(instance.containerId()); // closing, or the seeded pool was discarded meanwhile
            inProgress.set(0);
            return;
        }
        journal.pooled(key, instance); // before it can be claimed: the claim's left() then always follows it
        if (recipe == null) {
            ready.addLast(new Shelves.Pooled(instance, provisioner.openClaimSession(engine, instance), false));
        } else {
            ready.addLast(new Shelves.Pooled(instance, provisioner.openSeededClaimSession(engine, instance), true));
        }
        inProgress.set(0);
        if (ready.size() >= shelves.target(key) && filled.add(key)) {
            log.info(
                    "warm pool {}{} filled: {} ready container(s)",
                    choice.describe(),
                    recipe == null ? "" : " seeded for project " + recipe.project(),
                    ready.size());
        }
        refill(key);
    }

    private void submit(Runnable task, Duration delay, AtomicInteger inProgress) {
        try {
            refiller.schedule(
                    () -> {
                        try {
                            task.run();
                        } catch (Throwable t) {
                            inProgress.set(0);
                            log.error("unexpected exception while refilling the warm pool", t);
                        }
                    },
                    delay.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            inProgress.set(0); // closing
        }
    }
}
