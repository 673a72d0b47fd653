package io.roboco.sandbox.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.Features;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SeedException;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.provision.PoolSeedSteps;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServicePlan;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.StubEngine;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The seeded warm pool's logic on the fakes: which pool a seeded plan claims from, when one is made, replaced or
 * parked, what it hands out, and what it never keeps. The database side (seeder, ownership hand-over) is SeededPoolIT's.
 */
class SeededWarmPoolTest {
    private static final String SHOP = "shop";
    private static final Supplier<Optional<Runnable>> UNLIMITED = () -> Optional.of(() -> {});
    private final StubEngine postgres = new StubEngine("postgres", Set.of("pg_trgm", "citext"));
    private final EngineRegistry registry = EngineRegistry.of(List.of(postgres));
    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final ServiceProvisioner provisioner;
    /** The seeds applied to pool containers, as (container id, seeder user, seed). */
    private final List<String> seeded = new CopyOnWriteArrayList<>();

    private volatile String failingSeed;
    private ScheduledThreadPoolExecutor refiller;
    private WarmPool pool;

    SeededWarmPoolTest() {
        provisioner = PoolSeedSteps.provisioner(
                runtime,
                ProvisionSettings.defaults("test-instance").withReadyTimeout(Duration.ofSeconds(2)),
                SecretSource.secure(),
                Clock.systemUTC(),
                (plan, seeder, id) -> {
                    Seed.Sql sql = (Seed.Sql) plan.seed();
                    if (sql.script().equals(failingSeed)) {
                        throw new SeedException("seed SQL statement 1 of 1 failed: " + sql.script());
                    }
                    seeded.add(id + " " + seeder.credentials().user() + " " + sql.script());
                });
    }

    @AfterEach
    void close() {
        if (pool != null) {
            pool.close();
        }
    }

    /** The refill thread, injected so a test can see it idle; a retry still waiting when the pool closes is dropped. */
    /** The process ends without closing its pool (a crash): its refills stop, its idle containers stay. */
    private void crash() throws InterruptedException {
        refiller.shutdownNow();
        assertThat(refiller.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aGracefulCloseRemovesEveryIdleSeededContainerAndTellsTheJournal() throws Exception {
        List<String> left = new CopyOnWriteArrayList<>();
        PoolJournal journal = new PoolJournal() {
            @Override
            public void pooled(String poolKey, ServiceInstance idle) {}

            @Override
            public void left(String containerId) {
                left.add(containerId);
            }
        };
        refiller();
        pool = new WarmPool(registry, provisioner, new PoolSizes(Map.of(), 1), refiller, UNLIMITED, journal).start();
        pool.claim(plan("create table t (id int)"), "dev-1", SHOP);
        eventually("the seeded pool filled", () -> pool.idleSeeded(SHOP) == 1);
        String seededId = seededContainers("create table t (id int)").get(0).id();

        pool.close();

        assertThat(runtime.containerIds())
                .as("nothing idle outlives a graceful stop")
                .doesNotContain(seededId);
        assertThat(left).contains(seededId);
    }

    @Test
    void aProjectWithItsOwnLimitsGetsASeededPoolOfThoseCapsButNoUnseededContainer() throws Exception {
        Limits big = new Limits(1536L << 20, 1_000_000_000L, 512, 1L << 30);
        ServicePlan plan = new ServicePlan(
                postgres,
                provisioner.settings().choose(postgres, null),
                Set.of(),
                new Seed.Sql("create table big (id int)"),
                big);
        pool(1);

        assertThat(pool.claim(plan, "dev-1", SHOP))
                .as("nothing is ready yet, and an unseeded container (default caps) is not handed out instead")
                .isEmpty();
        eventually("the seeded pool filled", () -> pool.idleSeeded(SHOP) == 1);
        String id = seededContainers("create table big (id int)").get(0).id();
        assertThat(runtime.request(id).orElseThrow().limits())
                .as("the pool container runs the project's caps")
                .isEqualTo(big);

        ServiceInstance claimed = pool.claim(plan, "dev-2", SHOP).orElseThrow();
        assertThat(claimed.containerId()).isEqualTo(id);
        assertThat(claimed.limits()).isEqualTo(big);
    }

    private ScheduledThreadPoolExecutor refiller() {
        refiller = new ScheduledThreadPoolExecutor(1);
        refiller.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return refiller;
    }

    private WarmPool pool(int seededSize) {
        refiller();
        pool = new WarmPool(registry, provisioner, new PoolSizes(Map.of(), seededSize), refiller).start();
        return pool;
    }

    private ServicePlan plan(String sql, String... features) {
        Set<AllowedFeature> allowed =
                Arrays.stream(features).map(f -> Features.require(postgres, f)).collect(Collectors.toSet());
        return new ServicePlan(postgres, provisioner.settings().choose(postgres, null), allowed, new Seed.Sql(sql));
    }

    private List<ContainerState> seededContainers(String sql) {
        return runtime.list(Map.of(SandboxLabels.POOL_SEED, SHOP + ":" + SeedRecipe.digestOf(plan(sql))));
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(10);
        }
    }

    /** Nothing is running or waiting on the refill thread (a parked pool schedules nothing). */
    private void refillerIdle() throws InterruptedException {
        eventually(
                "the refill thread idle",
                () -> refiller.getActiveCount() == 0 && refiller.getQueue().isEmpty());
    }

    @Test
    void theFirstClaimOfASeededProjectMakesItsPoolAndTheNextIsAClaimOfAContainerSeededBeforehand() throws Exception {
        pool(2);

        assertThat(pool.claim(plan("create table t (id int)"), "dev-1", SHOP))
                .as("no pool yet: this one starts cold")
                .isEmpty();
        eventually("the seeded pool filled", () -> pool.idleSeeded(SHOP) == 2);
        List<ContainerState> ready = seededContainers("create table t (id int)");
        assertThat(ready)
                .hasSize(2)
                .allSatisfy(c -> assertThat(c.labels())
                        .containsEntry(SandboxLabels.POOL, "1")
                        .containsEntry(SandboxLabels.AGENT, ServiceProvisioner.POOL_OWNER));
        assertThat(seeded)
                .hasSize(2)
                .allSatisfy(line -> assertThat(line).contains(" seeder_", "create table t (id int)"));
        assertThat(postgres.retiredSeeders())
                .as("each seeder lost its login once its seed was in")
                .hasSize(2);

        ServiceInstance claimed =
                pool.claim(plan("create table t (id int)"), "dev-2", SHOP).orElseThrow();

        assertThat(ready).extracting(ContainerState::id).contains(claimed.containerId());
        assertThat(claimed.fromPool()).isTrue();
        Credentials seeder = postgres.retiredSeeders().stream()
                .filter(c -> c.database().equals(claimed.credentials().database()))
                .findFirst()
                .orElseThrow();
        assertThat(claimed.credentials().user()).startsWith("agent_").isNotEqualTo(seeder.user());
        assertThat(claimed.credentials().password())
                .isNotEqualTo(seeder.password())
                .isNotEqualTo(seeder.adminPassword());
        assertThat(postgres.handovers()).containsExactly(claimed.credentials());
        assertThat(postgres.claims())
                .as("not an unseeded claim (no fresh empty database)")
                .isEmpty();
        assertThat(seeded)
                .filteredOn(line -> line.startsWith(claimed.containerId()))
                .as("the seed is not applied again at claim")
                .hasSize(1);
        assertThat(provisioner.ledger().entry(claimed.containerId()))
                .hasValueSatisfying(e -> assertThat(e.reason()).isEqualTo(ContainerLedger.Reason.CLAIMED));
        eventually("the seeded pool refilled", () -> pool.idleSeeded(SHOP) == 2);
    }

    @Test
    void aPrimedSeededPoolFillsBeforeAnyClaimAndServesTheFirstOneAndARePrimeWithAnotherSeedReplacesIt()
            throws Exception {
        pool(1);

        assertThat(pool.prime(plan("create table t (id int)"), SHOP)).isTrue();
        eventually("the primed pool filled", () -> pool.idleSeeded(SHOP) == 1);
        String primed = seededContainers("create table t (id int)").get(0).id();
        assertThat(pool.prime(new ServicePlan(postgres, provisioner.settings().choose(postgres, null), Set.of()), SHOP))
                .as("an unseeded plan has no seeded pool")
                .isFalse();
        assertThat(pool.prime(plan("create table t (id int)"), SHOP))
                .as("primed again: the same pool")
                .isTrue();
        assertThat(runtime.containerIds()).contains(primed);

        assertThat(pool.claim(plan("create table t (id int)"), "dev-1", SHOP)
                        .orElseThrow()
                        .containerId())
                .isEqualTo(primed);

        eventually("refilled", () -> pool.idleSeeded(SHOP) == 1);
        String refilled = seededContainers("create table t (id int)").stream()
                .map(ContainerState::id)
                .filter(id -> !id.equals(primed))
                .findFirst()
                .orElseThrow();
        assertThat(pool.prime(plan("create table t2 (id int)"), SHOP))
                .as("the project saved with another seed")
                .isTrue();
        assertThat(runtime.containerIds()).doesNotContain(refilled);
        eventually(
                "the new seed's pool filled",
                () -> pool.idleSeeded(SHOP) == 1
                        && seededContainers("create table t2 (id int)").size() == 1);
    }

    @Test
    void aProjectWhoseSeedIsRemovedOrWhichIsGoneStopsHoldingSeededContainers() throws Exception {
        pool(1);
        pool.prime(plan("create table t (id int)"), SHOP);
        pool.prime(plan("create table t (id int)"), "blog");
        eventually("both pools filled", () -> pool.idleSeeded(SHOP) == 1 && pool.idleSeeded("blog") == 1);
        String shops = seededContainers("create table t (id int)").get(0).id();

        assertThat(pool.retainSeeded(SHOP, List.of(plan("create table t (id int)"))))
                .as("its plan still claims from it")
                .isZero();
        assertThat(pool.retainSeeded(SHOP, List.of()))
                .as("saved without a seed")
                .isEqualTo(1);
        assertThat(pool.idleSeeded(SHOP)).isZero();
        assertThat(runtime.containerIds()).doesNotContain(shops);
        assertThat(pool.retainSeededProjects(Set.of(SHOP)))
                .as("blog was deleted")
                .isEqualTo(1);
        assertThat(pool.idleSeeded()).isZero();
        assertThat(runtime.list(Map.of(SandboxLabels.POOL, "1"))).isEmpty();
    }

    @Test
    void aChangedSeedRemovesTheOldPoolsIdleContainersAndIsNeverServedFromThem() throws Exception {
        pool(2);
        pool.claim(plan("create table old (id int)"), "dev-1", SHOP);
        eventually("the old seed's pool filled", () -> pool.idleSeeded(SHOP) == 2);
        Set<String> old = seededContainers("create table old (id int)").stream()
                .map(ContainerState::id)
                .collect(Collectors.toSet());

        assertThat(pool.claim(plan("create table new (id int)"), "dev-2", SHOP)).isEmpty();

        assertThat(runtime.containerIds()).doesNotContainAnyElementsOf(old);
        eventually("the new seed's pool filled", () -> pool.idleSeeded(SHOP) == 2);
        ServiceInstance claimed =
                pool.claim(plan("create table new (id int)"), "dev-3", SHOP).orElseThrow();
        assertThat(runtime.request(claimed.containerId()).orElseThrow().labels())
                .containsEntry(
                        SandboxLabels.POOL_SEED, SHOP + ":" + SeedRecipe.digestOf(plan("create table new (id int)")));
        assertThat(seeded)
                .filteredOn(line -> line.startsWith(claimed.containerId()))
                .singleElement()
                .asString()
                .contains("new");
    }

    @Test
    void eachProjectHasItsOwnSeededPoolAndAnUnseededPlanNeverTakesASeededContainer() throws Exception {
        pool(1);
        pool.claim(plan("create table t (id int)"), "dev-1", SHOP);
        pool.claim(plan("create table t (id int)"), "dev-2", "blog");
        eventually("both pools filled", () -> pool.idleSeeded(SHOP) == 1 && pool.idleSeeded("blog") == 1);

        ServicePlan unseeded = new ServicePlan(postgres, provisioner.settings().choose(postgres, null), Set.of());
        assertThat(pool.claim(unseeded, "dev-3", SHOP)).isEmpty();
        assertThat(pool.claim(plan("create table t (id int)"), "dev-4"))
                .as("no project: no seeded pool")
                .isEmpty();
        assertThat(pool.idleSeeded()).isEqualTo(2);
        assertThat(pool.claim(plan("create table t (id int)"), "dev-5", "blog")).isPresent();
        assertThat(pool.idleSeeded(SHOP)).isEqualTo(1);
    }

    @Test
    void featuresAreActivatedBeforeTheSeedAndAContainerWithFeaturesAClaimDidNotAskForIsNeverServed() throws Exception {
        pool(1);
        pool.claim(plan("create table t (id int)", "pg_trgm"), "dev-1", SHOP);
        eventually("the seeded pool filled", () -> pool.idleSeeded(SHOP) == 1);
        String pooled = seededContainers("create table t (id int)").get(0).id();
        assertThat(runtime.execCalls()).anySatisfy(call -> {
            assertThat(call.containerId()).isEqualTo(pooled);
            assertThat(call.command()).containsExactly("activate", "pg_trgm");
        });

        ServiceInstance more = pool.claim(plan("create table t (id int)", "pg_trgm", "citext"), "dev-2", SHOP)
                .orElseThrow();
        assertThat(more.containerId()).isEqualTo(pooled);
        assertThat(more.features()).containsExactlyInAnyOrder("pg_trgm", "citext");
        assertThat(runtime.execCalls())
                .filteredOn(call -> call.containerId().equals(pooled))
                .extracting(c -> c.command().get(1))
                .as("only what the pool container lacked was activated at claim")
                .containsExactly("pg_trgm", "citext");

        eventually("refilled with pg_trgm", () -> pool.idleSeeded(SHOP) == 1);
        String withTrgm = seededContainers("create table t (id int)").stream()
                .map(ContainerState::id)
                .filter(id -> !id.equals(pooled))
                .findFirst()
                .orElseThrow();
        // It has pg_trgm, which this claim does not ask for: never served, removed; the pool makes bare ones from now
        // on
        // (the refill may be quick enough to serve this very claim).
        pool.claim(plan("create table t (id int)"), "dev-3", SHOP).ifPresent(bare -> {
            assertThat(bare.containerId()).isNotEqualTo(withTrgm);
            assertThat(bare.features()).isEmpty();
        });
        assertThat(runtime.containerIds()).doesNotContain(withTrgm);
        eventually("refilled without features", () -> pool.idleSeeded(SHOP) == 1);
        ServiceInstance bare =
                pool.claim(plan("create table t (id int)"), "dev-4", SHOP).orElseThrow();
        assertThat(bare.features()).isEmpty();
        assertThat(runtime.execCalls())
                .filteredOn(call -> call.containerId().equals(bare.containerId()))
                .isEmpty();
    }

    @Test
    void aSeedThatFailsInThePoolParksItsPoolInsteadOfRetryingEveryFewSeconds() throws Exception {
        failingSeed = "create table (";
        pool(2);

        assertThat(pool.claim(plan(failingSeed), "dev-1", SHOP)).isEmpty();
        eventually(
                "the failed container removed",
                () -> runtime.startCount() == 1 && runtime.containerIds().isEmpty());
        refillerIdle();
        assertThat(pool.claim(plan(failingSeed), "dev-2", SHOP)).isEmpty();
        refillerIdle();

        assertThat(runtime.startCount())
                .as("parked: no second start within " + SeededPools.RETRY_AFTER)
                .isEqualTo(1);
        assertThat(provisioner.ledger().ownedIds()).isEmpty();
    }

    @Test
    void seededContainersCountTowardsCapacityAndStartOnlyWithAPermit() throws Exception {
        CountDownLatch asked = new CountDownLatch(1);
        refiller();
        pool = new WarmPool(
                        registry,
                        provisioner,
                        new PoolSizes(Map.of(), 2),
                        refiller,
                        () -> {
                            asked.countDown();
                            return Optional.empty();
                        },
                        PoolJournal.NONE)
                .start();

        pool.claim(plan("create table t (id int)"), "dev-1", SHOP);

        assertThat(asked.await(10, TimeUnit.SECONDS))
                .as("the seeded pool asked capacity for a permit")
                .isTrue();
        assertThat(runtime.startCount()).isZero();
    }

    @Test
    void aSeededContainerLeftByACrashIsReadoptedAndServesTheProjectsNextClaimOfTheSameSeed() throws Exception {
        Map<String, ServiceInstance> journaled = new ConcurrentHashMap<>();
        PoolJournal journal = new PoolJournal() {
            @Override
            public void pooled(String poolKey, ServiceInstance idle) {
                journaled.put(poolKey, idle);
            }

            @Override
            public void left(String containerId) {
                journaled.values().removeIf(i -> i.containerId().equals(containerId));
            }
        };
        refiller();
        pool = new WarmPool(registry, provisioner, new PoolSizes(Map.of(), 1), refiller, UNLIMITED, journal).start();
        pool.claim(plan("create table t (id int)"), "dev-1", SHOP);
        eventually("the seeded pool filled", () -> pool.idleSeeded(SHOP) == 1);
        String seededId = seededContainers("create table t (id int)").get(0).id();
        crash();
        assertThat(runtime.containerIds()).as("left for the next process").contains(seededId);
        String key = journaled.keySet().iterator().next();
        assertThat(key)
                .isEqualTo("postgres@stub/postgres:1#" + SHOP + ":"
                        + SeedRecipe.digestOf(plan("create table t (id int)")));

        WarmPool next = new WarmPool(registry, provisioner, new PoolSizes(Map.of(), 1), refiller(), UNLIMITED, journal);
        pool = next;
        assertThat(next.adopt(journaled.get(key)))
                .as("not an unseeded container of its image")
                .isFalse();
        assertThat(next.adopt(key, journaled.get(key))).isTrue();
        next.start();
        assertThat(next.idleSeeded(SHOP)).isEqualTo(1);
        assertThat(next.claim(plan("create table other (id int)"), "dev-2", "blog"))
                .as("another project's claim")
                .isEmpty();

        ServiceInstance claimed =
                next.claim(plan("create table t (id int)"), "dev-3", SHOP).orElseThrow();

        assertThat(claimed.containerId()).isEqualTo(seededId);
        assertThat(postgres.handovers()).containsExactly(claimed.credentials());
        assertThat(journaled.values())
                .extracting(ServiceInstance::containerId)
                .as("the claim left the journal")
                .doesNotContain(seededId);
        eventually("the re-adopted pool refills from the claim's recipe", () -> next.idleSeeded(SHOP) == 1);
    }

    @Test
    void aReadoptedSeededContainerIsNeverServedToAClaimOfAnotherSeedOrWhenNoSeededPoolIsKept() throws Exception {
        refiller();
        pool = new WarmPool(registry, provisioner, new PoolSizes(Map.of(), 1), refiller).start();
        pool.claim(plan("create table t (id int)"), "dev-1", SHOP);
        eventually("the seeded pool filled", () -> pool.idleSeeded(SHOP) == 1);
        crash();
        ContainerState kept = seededContainers("create table t (id int)").get(0);
        ServiceInstance instance = new ServiceInstance(
                "postgres",
                kept.image(),
                kept.id(),
                kept.name(),
                new Endpoint("127.0.0.1", 1),
                postgres.retiredSeeders().get(0),
                Set.of(),
                Instant.now(),
                "");
        String key =
                "postgres@" + kept.image() + "#" + SHOP + ":" + SeedRecipe.digestOf(plan("create table t (id int)"));

        try (WarmPool unseeded =
                new WarmPool(registry, provisioner, new PoolSizes(Map.of("postgres", 1), 0), refiller())) {
            assertThat(unseeded.adopt(key, instance)).as("no seeded pools kept").isFalse();
        }
        WarmPool next = new WarmPool(registry, provisioner, new PoolSizes(Map.of(), 1), refiller());
        pool = next;
        assertThat(next.adopt(key, instance)).isTrue();
        next.start();

        assertThat(next.claim(plan("create table changed (id int)"), "dev-2", SHOP))
                .isEmpty();
        assertThat(runtime.containerIds())
                .as("the old seed's container is discarded")
                .doesNotContain(kept.id());
    }
}
