package io.roboco.sandbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.Gate;
import io.roboco.sandbox.it.GatedEngines;
import io.roboco.sandbox.it.GrantDecisions;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.it.Probe;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import io.roboco.sandbox.testkit.LockWaiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * release_sandbox racing request_sandbox for the same agent, the race forced at three seams instead of
 * sampled with sleeps: a grant never carries a container whose removal had begun when the grant was
 * decided, and a request queued behind a release gets a fresh, working set.
 *
 * <p>Each round is one race, chosen at random (seeded; the seed is printed) among those the agent's
 * state allows:
 * <ul>
 *   <li><b>provisioning</b> (no cached set): the request parks inside provisioning (its container start,
 *       holding the agent's lock); the release is fired and seen parked on that lock; then the start goes on.</li>
 *   <li><b>liveness</b> (a cached set): the request parks inside the cache hit's liveness check (same lock);
 *       the release is fired and seen parked on the lock; then the check goes on.</li>
 *   <li><b>removal</b> (a cached set): the release parks inside its removal (holding the lock, the cache entry
 *       gone); the request is fired and seen parked on the lock; then the removal goes on.</li>
 * </ul>
 * "Decided" is timed inside the agent's lock ({@link GrantDecisions}); "removal began" when the server
 * asked the runtime to remove the container ({@code RecordingRuntime}). Several agents race at once, one
 * round at a time each; firing a call and finding its thread parked on the lock is done under one test lock,
 * so the new parked thread is that call's.
 */
class ReleaseRaceIT {
    private static final int RACES = 100;
    private static final Duration DEADLINE = Duration.ofMinutes(6);
    private static final Duration STEP = Duration.ofSeconds(60);
    private static final String MANAGER = SandboxManager.class.getName();
    /** Three Redis-only agents (the fastest to re-provision) and one with the Postgres + Redis set. */
    private static final Map<String, String> AGENTS =
            Map.of("race-r1", "race-redis", "race-r2", "race-redis", "race-r3", "race-redis", "race-pg", "race-full");

    private static final long SEED = Long.getLong("roboco.race.seed", System.nanoTime());
    private static final GatedEngines ENGINES = new GatedEngines();

    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "30s", null, ENGINES));

    private enum Race {
        PROVISIONING,
        LIVENESS,
        REMOVAL
    }

    private final ReentrantLock firing = new ReentrantLock();
    private final AtomicInteger races = new AtomicInteger();
    private final Map<Race, AtomicInteger> byRace = new ConcurrentHashMap<>();
    private final AtomicInteger grants = new AtomicInteger();
    private final AtomicInteger removedAfterTheAnswer = new AtomicInteger();
    private final AtomicInteger freshAndWorking = new AtomicInteger();
    private final AtomicInteger warmUps = new AtomicInteger();
    private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    private final List<String> failures = Collections.synchronizedList(new ArrayList<>());

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void aGrantNeverCarriesAContainerWhoseRemovalHadBegun() throws Exception {
        System.out.println("ReleaseRaceIT seed " + SEED + " (rerun with -Droboco.race.seed=" + SEED + ")");
        ApiClient api = SERVER.api();
        api.admin("PUT", "/api/projects/race-redis", "{\"name\":\"race-redis\",\"sandbox_services\":[\"redis\"]}");
        List<String> agents = AGENTS.keySet().stream().sorted().toList();
        for (String agent : agents) {
            String services = AGENTS.get(agent).equals("race-full") ? "[\"postgres\",\"redis\"]" : "[\"redis\"]";
            api.working(agent, AGENTS.get(agent), services);
        }
        long begin = System.nanoTime();
        long deadline = begin + DEADLINE.toNanos();
        ExecutorService threads = Executors.newFixedThreadPool(agents.size() * 3);
        try (GrantDecisions decisions = GrantDecisions.record()) {
            List<Future<?>> loops = new ArrayList<>();
            for (int i = 0; i < agents.size(); i++) {
                String agent = agents.get(i);
                Random random = new Random(SEED + i);
                loops.add(threads.submit(() -> {
                    raceUntilDone(api, agent, random, decisions, threads, deadline);
                    return null;
                }));
            }
            for (Future<?> loop : loops) {
                loop.get(DEADLINE.plusMinutes(1).toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - begin);
        Fixtures.figure(
                "ReleaseRaceIT grants carrying a removed container: " + violations.size() + " (releases racing grants "
                        + races.get() + " of " + RACES + " wanted: " + byRace + "; grants " + grants.get()
                        + ", removed by the racing release after the answer "
                        + removedAfterTheAnswer.get() + ", fresh and working after a release " + freshAndWorking.get()
                        + ", warm-up requests "
                        + warmUps.get() + "; " + agents.size() + " agents, " + seconds + " s, seed " + SEED + ")");
        assertThat(violations).isEmpty();
        assertThat(failures).isEmpty();
        assertThat(races.get())
                .as("releases racing grants by the deadline (%s s)", DEADLINE.toSeconds())
                .isGreaterThanOrEqualTo(RACES);
        for (String agent : agents) {
            assertThat(api.verb(agent, "release_sandbox", "{}").ok()).isTrue();
        }
        assertThat(Fixtures.containersOf(SERVER.server().instanceId()))
                .as("nothing left after the last releases")
                .isEmpty();
    }

    private void raceUntilDone(
            ApiClient api,
            String agent,
            Random random,
            GrantDecisions decisions,
            ExecutorService threads,
            long deadline)
            throws Exception {
        Map<String, Map<String, String>> cached = null;
        while (races.get() < RACES && failures.isEmpty() && violations.isEmpty() && System.nanoTime() < deadline) {
            if (cached == null && random.nextBoolean()) {
                ApiClient.Reply warm = api.requestSandboxRetrying(agent, 5);
                if (!warm.ok()) {
                    failures.add(agent + " warm-up: " + warm);
                    return;
                }
                warmUps.incrementAndGet();
                cached = warm.grants();
                continue;
            }
            Race race = cached == null ? Race.PROVISIONING : random.nextBoolean() ? Race.LIVENESS : Race.REMOVAL;
            cached = switch (race) {
                case PROVISIONING -> releaseWhileProvisioning(api, agent, decisions, threads);
                case LIVENESS -> releaseWhileCheckingLiveness(api, agent, cached, decisions, threads);
                case REMOVAL -> requestWhileRemoving(api, agent, cached, decisions, threads);
            };
            races.incrementAndGet();
            byRace.computeIfAbsent(race, r -> new AtomicInteger()).incrementAndGet();
        }
    }

    /** The request parks in its container start; the release queues on the agent's lock; the grant's containers are removed only after it was decided. */
    private Map<String, Map<String, String>> releaseWhileProvisioning(
            ApiClient api, String agent, GrantDecisions decisions, ExecutorService threads) throws Exception {
        Gate start = SERVER.server()
                .runtime
                .parkNextStart(
                        agent + " provisioning", r -> agent.equals(r.labels().get(SandboxLabels.AGENT)));
        Future<ApiClient.Reply> request = threads.submit(() -> api.requestSandbox(agent));
        start.awaitParked(STEP);
        Future<ApiClient.Reply> release =
                fireAndAwaitParked(() -> api.verb(agent, "release_sandbox", "{}"), threads, "release");
        start.open();
        checkGrantThenRemoval(agent, request.get(STEP.toMillis(), TimeUnit.MILLISECONDS), release, decisions, start);
        return null;
    }

    /** The cache hit parks in its liveness check; the release queues on the lock; as above. */
    private Map<String, Map<String, String>> releaseWhileCheckingLiveness(
            ApiClient api,
            String agent,
            Map<String, Map<String, String>> cached,
            GrantDecisions decisions,
            ExecutorService threads)
            throws Exception {
        Set<Integer> ports = Set.copyOf(cached.entrySet().stream()
                .map(e -> port(e.getKey(), e.getValue()))
                .toList());
        Gate liveness = ENGINES.parkNextLivenessCheck(agent + " liveness", ports::contains);
        Future<ApiClient.Reply> request = threads.submit(() -> api.requestSandbox(agent));
        liveness.awaitParked(STEP);
        Future<ApiClient.Reply> release =
                fireAndAwaitParked(() -> api.verb(agent, "release_sandbox", "{}"), threads, "release");
        liveness.open();
        ApiClient.Reply reply = request.get(STEP.toMillis(), TimeUnit.MILLISECONDS);
        if (reply.ok() && !reply.grants().equals(cached)) {
            violations.add(
                    agent + " liveness race: the parked cache hit answered other credentials than the cached set");
        }
        checkGrantThenRemoval(agent, reply, release, decisions, liveness);
        return null;
    }

    /** The release parks in its removal; the request queues on the lock; it then gets a fresh set that works. */
    private Map<String, Map<String, String>> requestWhileRemoving(
            ApiClient api,
            String agent,
            Map<String, Map<String, String>> cached,
            GrantDecisions decisions,
            ExecutorService threads)
            throws Exception {
        Set<String> old = ConcurrentHashMap.newKeySet();
        cached.forEach((service, env) -> old.add(SERVER.server().runtime.containerOnPort(port(service, env))));
        Gate removal = SERVER.server().runtime.parkNextRemove(agent + " removal", old::contains);
        Future<ApiClient.Reply> release = threads.submit(() -> api.verb(agent, "release_sandbox", "{}"));
        removal.awaitParked(STEP);
        Future<ApiClient.Reply> request = fireAndAwaitParked(() -> api.requestSandbox(agent), threads, "ensure");
        removal.open();
        expectOk(agent + " release", release.get(STEP.toMillis(), TimeUnit.MILLISECONDS));
        ApiClient.Reply reply = request.get(STEP.toMillis(), TimeUnit.MILLISECONDS);
        if (!reply.ok()) {
            failures.add(agent + " request queued behind a release: " + reply);
            return null;
        }
        grants.incrementAndGet();
        GrantDecisions.Decision decided = decisionOf(agent, reply, decisions);
        boolean clean = decided != null;
        for (Map.Entry<String, Map<String, String>> g : reply.grants().entrySet()) {
            String id = SERVER.server().runtime.containerOnPort(port(g.getKey(), g.getValue()));
            Long removalBegan = SERVER.server().runtime.removalStarted(id);
            if (old.contains(id) || (removalBegan != null && decided != null && removalBegan < decided.nanos())) {
                violations.add(agent + " removal race: " + g.getKey() + " " + id
                        + " was being removed when the grant was decided");
                clean = false;
            } else {
                String failure = Probe.tryUse(g.getKey(), g.getValue());
                if (failure != null) {
                    violations.add(agent + " removal race: the fresh " + g.getKey() + " does not work: " + failure);
                    clean = false;
                }
            }
        }
        if (removal.overstayed()) {
            failures.add(removal + " overstayed");
        }
        if (clean) {
            freshAndWorking.incrementAndGet();
        }
        return reply.grants();
    }

    /** A grant answered while a release queued behind it: each of its containers' removal began after the decision. */
    private void checkGrantThenRemoval(
            String agent, ApiClient.Reply reply, Future<ApiClient.Reply> release, GrantDecisions decisions, Gate gate)
            throws Exception {
        expectOk(agent + " release", release.get(STEP.toMillis(), TimeUnit.MILLISECONDS));
        if (gate.overstayed()) {
            failures.add(gate + " overstayed");
        }
        if (!reply.ok()) {
            failures.add(agent + " request (" + gate + "): " + reply);
            return;
        }
        grants.incrementAndGet();
        GrantDecisions.Decision decided = decisionOf(agent, reply, decisions);
        if (decided == null) {
            return;
        }
        boolean allRemovedAfter = true;
        for (Map.Entry<String, Map<String, String>> g : reply.grants().entrySet()) {
            String id = SERVER.server().runtime.containerOnPort(port(g.getKey(), g.getValue()));
            Long removalBegan = SERVER.server().runtime.removalStarted(id);
            if (removalBegan != null && removalBegan < decided.nanos()) {
                violations.add(agent + " " + gate + ": " + g.getKey() + " " + id + " removal began "
                        + TimeUnit.NANOSECONDS.toMillis(decided.nanos() - removalBegan)
                        + " ms before the grant was decided");
            }
            allRemovedAfter &= removalBegan != null;
        }
        if (allRemovedAfter) {
            removedAfterTheAnswer.incrementAndGet();
        }
    }

    /**
     * Fires {@code call} and returns once its server thread is parked on the agent's lock inside
     * {@code SandboxManager.<method>}; under {@link #firing}, so the new parked thread is this call's.
     */
    private Future<ApiClient.Reply> fireAndAwaitParked(
            Callable<ApiClient.Reply> call, ExecutorService threads, String method) throws InterruptedException {
        firing.lock();
        try {
            List<Thread> before = LockWaiters.inside(MANAGER, method);
            Future<ApiClient.Reply> fired = threads.submit(call);
            LockWaiters.awaitNew(before, MANAGER, method, STEP);
            return fired;
        } finally {
            firing.unlock();
        }
    }

    private GrantDecisions.Decision decisionOf(String agent, ApiClient.Reply reply, GrantDecisions decisions) {
        List<String> names = reply.grants().entrySet().stream()
                .map(g -> SERVER.server().runtime.containerOnPort(port(g.getKey(), g.getValue())))
                .map(id -> SERVER.server().runtime.nameOf(id))
                .toList();
        GrantDecisions.Decision decided = decisions.of(agent, names);
        if (decided == null) {
            failures.add(agent + ": no decision recorded for the grant of " + names);
        }
        return decided;
    }

    private void expectOk(String what, ApiClient.Reply reply) {
        if (!reply.ok()) {
            failures.add(what + ": " + reply);
        }
    }

    private static int port(String service, Map<String, String> env) {
        return Integer.parseInt(
                service.equals("postgres") ? env.get("ROBOCO_TEST_DB_PORT") : env.get("ROBOCO_TEST_REDIS_PORT"));
    }
}
