package io.roboco.sandbox.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.manager.EnsureOutcome;
import io.roboco.sandbox.manager.Requests;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServicePlan;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.StubEngine;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WarmPoolTest {
    private final StubEngine postgres = new StubEngine("postgres", Set.of("pg_trgm"));
    private final StubEngine redis = new StubEngine("redis", Set.of());
    private final EngineRegistry registry = EngineRegistry.of(List.of(postgres, redis));
    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final ServiceProvisioner provisioner = new ServiceProvisioner(
            runtime,
            ProvisionSettings.defaults("test-instance").withReadyTimeout(Duration.ofSeconds(2)),
            SecretSource.secure(),
            Clock.systemUTC());
    private final Project shop =
            new Project("shop", "Shop", List.of("postgres"), Map.of("postgres", List.of("pg_trgm")));
    private WarmPool pool;
    private SandboxManager manager;

    @AfterEach
    void close() {
        if (manager != null) {
            manager.close();
        }
        if (pool != null) {
            pool.close();
        }
    }

    /** A bare postgres plan on the configured image, as the guard chain makes it. */
    private ServicePlan plan() {
        return new ServicePlan(postgres, provisioner.settings().choose(postgres, null), Set.of());
    }

    private ContainerLedger ledger() {
        return provisioner.ledger();
    }

    private WarmPool pool(Map<String, Integer> sizes) {
        pool = new WarmPool(registry, provisioner, new PoolSizes(sizes)).start();
        manager = new SandboxManager(registry, provisioner, Clock.systemUTC(), pool);
        return pool;
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

    private ServiceInstance ensurePostgres(String agent) throws InterruptedException {
        EnsureOutcome outcome =
                manager.ensure(Requests.valid(registry, provisioner.settings(), agent, shop, List.of(), Map.of()));
        assertThat(outcome).isInstanceOf(EnsureOutcome.Ready.class);
        return ((EnsureOutcome.Ready) outcome).services().get(0);
    }

    @Test
    void fillsEachEngineToItsSizeInTheBackgroundWithLabelledContainersOwnedByNoAgent() throws Exception {
        pool(Map.of("postgres", 2, "redis", 1));
        eventually("pool filled", () -> pool.idle("postgres") == 2 && pool.idle("redis") == 1);

        assertThat(runtime.list(Map.of(SandboxLabels.POOL, "1"))).hasSize(3).allSatisfy(c -> {
            assertThat(c.labels())
                    .containsEntry(SandboxLabels.SANDBOX, "1")
                    .containsEntry(SandboxLabels.INSTANCE, "test-instance")
                    .containsEntry(SandboxLabels.AGENT, ServiceProvisioner.POOL_OWNER);
        });
        assertThat(ledger().ids(ContainerLedger.Reason.POOLED))
                .containsExactlyInAnyOrderElementsOf(runtime.containerIds());
        assertThat(ledger().entries())
                .extracting(ContainerLedger.Entry::owner)
                .containsExactlyInAnyOrder(
                        "postgres@stub/postgres:1", "postgres@stub/postgres:1", "redis@stub/redis:1");
    }

    @Test
    void eachClaimHandsOutCredentialsMadeAtClaimTimeAndNeverTheSameTwice() throws Exception {
        pool(Map.of("postgres", 2));
        eventually("pool filled", () -> pool.idle("postgres") == 2);

        ServiceInstance first = pool.claim(plan(), "dev-1").orElseThrow();
        ServiceInstance second = pool.claim(plan(), "dev-2").orElseThrow();

        assertThat(first.containerId()).isNotEqualTo(second.containerId());
        assertThat(first.credentials().user()).isNotEqualTo(second.credentials().user());
        assertThat(first.credentials().password())
                .isNotEqualTo(second.credentials().password());
        assertThat(first.credentials().database())
                .isNotEqualTo(second.credentials().database());
        assertThat(postgres.claims()).containsExactly(first.credentials(), second.credentials());
        // Nothing of the pool's own setup: the agent pair differs from the one the container was started with.
        for (ServiceInstance claimed : List.of(first, second)) {
            RunRequest started = runtime.request(claimed.containerId()).orElseThrow();
            assertThat(started.spec().env().values())
                    .doesNotContain(claimed.credentials().password());
        }
    }

    @Test
    void theManagerClaimsFromThePoolActivatesTheAskedFeaturesAndTheRefillFollows() throws Exception {
        pool(Map.of("postgres", 1));
        eventually("pool filled", () -> pool.idle("postgres") == 1);
        String pooledId = ledger().ids(ContainerLedger.Reason.POOLED).iterator().next();

        ServiceInstance granted = ensurePostgres("dev-1");

        assertThat(granted.containerId()).isEqualTo(pooledId);
        assertThat(granted.features()).containsExactly("pg_trgm");
        assertThat(runtime.execCalls()).anySatisfy(call -> {
            assertThat(call.containerId()).isEqualTo(pooledId);
            assertThat(call.command()).containsExactly("activate", "pg_trgm");
        });
        assertThat(ledger().entry(pooledId)).hasValueSatisfying(e -> {
            assertThat(e.reason()).isEqualTo(ContainerLedger.Reason.HELD);
            assertThat(e.owner()).isEqualTo("dev-1");
        });
        eventually("pool refilled", () -> pool.idle("postgres") == 1);
        assertThat(ledger().ids(ContainerLedger.Reason.POOLED))
                .doesNotContain(pooledId)
                .hasSize(1);
    }

    @Test
    void anEmptyPoolNeverBlocksTheClaim() throws Exception {
        runtime.setStartLatency(Duration.ofSeconds(3));
        pool(Map.of("postgres", 1)); // the refill is now busy for 3 s

        long t0 = System.nanoTime();
        Optional<ServiceInstance> claimed = pool.claim(plan(), "dev-1");

        assertThat(claimed).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(500));
    }

    @Test
    void aBrokenPoolContainerIsRemovedAndTheAgentGetsAColdOne() throws Exception {
        pool(Map.of("postgres", 1));
        eventually("pool filled", () -> pool.idle("postgres") == 1);
        String pooledId = ledger().ids(ContainerLedger.Reason.POOLED).iterator().next();
        int port = runtime.request(pooledId).orElseThrow().spec().port();
        postgres.markDead(new Endpoint("127.0.0.1", port));

        ServiceInstance granted = ensurePostgres("dev-1");

        assertThat(granted.containerId()).isNotEqualTo(pooledId);
        assertThat(runtime.containerIds()).doesNotContain(pooledId);
        assertThat(runtime.request(granted.containerId()).orElseThrow().labels())
                .containsEntry(SandboxLabels.AGENT, "dev-1");
    }

    @Test
    void releaseRemovesAClaimedContainerThoughItsLabelsStillSayPool() throws Exception {
        pool(Map.of("postgres", 1));
        eventually("pool filled", () -> pool.idle("postgres") == 1);
        ServiceInstance granted = ensurePostgres("dev-1");
        assertThat(runtime.request(granted.containerId()).orElseThrow().labels())
                .containsEntry(SandboxLabels.POOL, "1");

        manager.release("dev-1");

        assertThat(runtime.containerIds()).doesNotContain(granted.containerId());
    }

    @Test
    void closeWhileARefillIsStillBecomingReadyLetsItFinishAndRemovesItsContainer() throws Exception {
        postgres.holdReadinessWhen(c -> true);
        pool(Map.of("postgres", 1));
        assertThat(postgres.awaitHeld(Duration.ofSeconds(10)))
                .as("the refill is inside its readiness wait")
                .isTrue();
        assertThat(runtime.containerIds()).hasSize(1);

        Thread closing = new Thread(pool::close, "close-pool");
        closing.start();
        eventually("close waits for the refill", () -> closing.getState() == Thread.State.TIMED_WAITING);
        postgres.releaseHeld();
        closing.join(10_000);

        assertThat(closing.isAlive()).isFalse();
        assertThat(runtime.containerIds())
                .as("the refill's container, started while closing")
                .isEmpty();
        assertThat(ledger().ownedIds()).isEmpty();
    }

    @Test
    void closeRemovesIdleContainersAndStopsRefilling() throws Exception {
        pool(Map.of("postgres", 2));
        eventually("pool filled", () -> pool.idle("postgres") == 2);

        pool.close();

        assertThat(runtime.containerIds()).isEmpty();
        assertThat(ledger().ownedIds()).isEmpty();
        assertThat(pool.claim(plan(), "dev-1")).isEmpty();
    }

    @Test
    void sizesAreBoundedAndNameKnownEngines() {
        Assertions.assertThatThrownBy(() -> new PoolSizes(Map.of("postgres", PoolSizes.MAX_PER_ENGINE + 1)))
                .hasMessageContaining("0-" + PoolSizes.MAX_PER_ENGINE);
        Assertions.assertThatThrownBy(() -> new WarmPool(registry, provisioner, new PoolSizes(Map.of("mysql", 1))))
                .hasMessageContaining("known: postgres, redis");
        assertThat(PoolSizes.none().enabled()).isFalse();
    }
}
