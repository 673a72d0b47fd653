package io.roboco.sandbox.manager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.LockWaiters;
import io.roboco.sandbox.testkit.StubEngine;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SandboxManagerTest {
    private final StubEngine postgres = new StubEngine("postgres", Set.of("pg_trgm", "vector"));
    private final StubEngine redis = new StubEngine("redis", Set.of("search"));
    private final StubEngine mongo = new StubEngine("mongo", Set.of());
    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final ProvisionSettings settings =
            ProvisionSettings.defaults("test-instance").withReadyTimeout(Duration.ofSeconds(2));
    private final EngineRegistry registry = EngineRegistry.of(List.of(postgres, redis, mongo));
    private final SandboxManager manager = new SandboxManager(
            registry,
            new ServiceProvisioner(runtime, settings, SecretSource.secure(), Clock.systemUTC()),
            Clock.systemUTC());
    private final Project shop =
            new Project("shop", "Shop", List.of("postgres", "redis", "mongo"), Map.of("postgres", List.of("pg_trgm")));

    @AfterEach
    void close() {
        manager.close();
    }

    private SandboxRequest request(
            String agent, Project project, List<String> services, Map<String, List<String>> extensions) {
        return Requests.valid(registry, settings, agent, project, services, extensions);
    }

    private EnsureOutcome.Ready ensure(String agent, Project project, String... services) throws InterruptedException {
        EnsureOutcome outcome = manager.ensure(request(agent, project, List.of(services), Map.of()));
        assertThat(outcome).isInstanceOf(EnsureOutcome.Ready.class);
        return (EnsureOutcome.Ready) outcome;
    }

    @Test
    void firstCallProvisionsTheWholeSetButAnswersOnlyWhatWasAsked() throws Exception {
        EnsureOutcome.Ready ready = ensure("dev-1", shop, "postgres");

        assertThat(ready.services()).extracting(ServiceInstance::service).containsExactly("postgres");
        assertThat(ready.cacheHit()).isFalse();
        assertThat(runtime.runningCount()).isEqualTo(3);
        assertThat(ready.services().get(0).features()).containsExactly("pg_trgm");
    }

    @Test
    void laterCallsForSubsetsOrTheWholeSetAreCacheHitsWithTheSameCredentials() throws Exception {
        ServiceInstance first = ensure("dev-1", shop, "postgres").services().get(0);
        int starts = runtime.startCount();
        runtime.resetCounts();

        EnsureOutcome.Ready again = ensure("dev-1", shop, "redis", "mongo");
        EnsureOutcome.Ready all = ensure("dev-1", shop);

        assertThat(again.cacheHit()).isTrue();
        assertThat(all.services()).extracting(ServiceInstance::service).containsExactly("postgres", "redis", "mongo");
        assertThat(all.services().get(0).credentials()).isEqualTo(first.credentials());
        assertThat(runtime.startCount()).isZero();
        assertThat(runtime.removeCount()).isZero();
        assertThat(runtime.callCount()).as("only liveness inspections").isEqualTo(runtime.inspectCount());
        assertThat(starts).isEqualTo(3);
    }

    @Test
    void aKilledContainerIsEvictedAndTheWholeSetReprovisionedWithNewCredentials() throws Exception {
        EnsureOutcome.Ready before = ensure("dev-1", shop);
        runtime.kill(before.services().get(1).containerId());

        EnsureOutcome.Ready after = ensure("dev-1", shop);

        assertThat(after.cacheHit()).isFalse();
        assertThat(after.services()).hasSize(3);
        for (int i = 0; i < 3; i++) {
            assertThat(after.services().get(i).containerId())
                    .isNotEqualTo(before.services().get(i).containerId());
            assertThat(after.services().get(i).credentials().password())
                    .isNotEqualTo(before.services().get(i).credentials().password());
        }
        assertThat(runtime.containerIds())
                .containsExactlyInAnyOrderElementsOf(after.services().stream()
                        .map(ServiceInstance::containerId)
                        .toList());
    }

    @Test
    void aSetsClearlySlowestEngineIsStartedFirstAndItsSiblingsOnlyOnceItsContainerIsStarted() throws Exception {
        // Measured starts first: postgres and redis alone (each call's wall time bounds its measured start), then mongo
        // held at readiness for twice the longer of them, so it is measured clearly the slowest, on any machine.
        long bound = 0;
        for (String service : List.of("postgres", "redis")) {
            Project alone = new Project(service + "-only", service, List.of(service), Map.of());
            long t0 = System.nanoTime();
            ensure("measure-" + service, alone, service);
            bound = Math.max(bound, System.nanoTime() - t0);
        }
        mongo.holdReadinessWhen(c -> true);
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Project mongoOnly = new Project("mongo-only", "mongo", List.of("mongo"), Map.of());
            Future<EnsureOutcome.Ready> slow = caller.submit(() -> ensure("measure-mongo", mongoOnly, "mongo"));
            assertThat(mongo.awaitHeld(Duration.ofSeconds(10))).isTrue();
            TimeUnit.NANOSECONDS.sleep(2 * bound);
            mongo.releaseHeld();
            slow.get(10, TimeUnit.SECONDS);
        } finally {
            caller.shutdownNow();
        }
        mongo.holdReadinessWhen(c -> false);

        // The set: mongo's runtime start waits (briefly) for a sibling's start; none comes before mongo's returns.
        List<String> starts = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch siblingStarted = new CountDownLatch(1);
        runtime.onStart(request -> {
            String service = request.labels().get(SandboxLabels.SERVICE);
            if (!service.equals("mongo")) {
                starts.add(service);
                siblingStarted.countDown();
                return;
            }
            starts.add("mongo:begin");
            try {
                siblingStarted.await(100, TimeUnit.MILLISECONDS); // a sibling started meanwhile is caught here
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            starts.add("mongo:end");
        });

        ensure("dev-1", shop);

        assertThat(starts).hasSize(4);
        assertThat(starts.subList(0, 2)).containsExactly("mongo:begin", "mongo:end");
        assertThat(starts.subList(2, 4)).containsExactlyInAnyOrder("postgres", "redis");
    }

    @Test
    void aServiceThatStopsAnsweringIsEvictedEvenIfItsContainerRuns() throws Exception {
        EnsureOutcome.Ready before = ensure("dev-1", shop);
        postgres.markDead(before.services().get(0).endpoint());

        EnsureOutcome.Ready after = ensure("dev-1", shop, "postgres");

        assertThat(after.cacheHit()).isFalse();
        assertThat(after.services().get(0).containerId())
                .isNotEqualTo(before.services().get(0).containerId());
    }

    @Test
    void concurrentCallsForOneAgentLeaveExactlyOneContainerPerService() throws Exception {
        // The first call parks in postgres's readiness, holding the agent's lock; the other 31 are then
        // certainly queued behind it (parked on that lock inside ensure) before it is let go.
        postgres.holdReadinessWhen(c -> true);
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            List<Future<EnsureOutcome.Ready>> calls = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                calls.add(pool.submit(() -> ensure("dev-1", shop, "postgres")));
            }
            assertThat(postgres.awaitHeld(Duration.ofSeconds(10)))
                    .as("a call is provisioning")
                    .isTrue();
            LockWaiters.await(SandboxManager.class.getName(), "ensure", 31, Duration.ofSeconds(10));

            postgres.releaseHeld();

            List<String> passwords = new ArrayList<>();
            for (Future<EnsureOutcome.Ready> f : calls) {
                passwords.add(f.get(10, TimeUnit.SECONDS)
                        .services()
                        .get(0)
                        .credentials()
                        .password());
            }
            assertThat(runtime.startCount()).isEqualTo(3);
            assertThat(runtime.runningCount()).isEqualTo(3);
            assertThat(Set.copyOf(passwords)).hasSize(1);
        } finally {
            postgres.releaseHeld();
            pool.shutdownNow();
        }
    }

    @Test
    void aSlowProvisioningForOneAgentDoesNotDelayAnotherAgentsCacheHit() throws Exception {
        ensure("fast", shop);
        postgres.holdReadinessWhen(c -> true);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<EnsureOutcome.Ready> slow = pool.submit(() -> ensure("slow", shop));
            assertThat(postgres.awaitHeld(Duration.ofSeconds(10)))
                    .as("the slow agent is provisioning")
                    .isTrue();

            EnsureOutcome.Ready hit = ensure("fast", shop, "postgres");

            // The hit came back while the slow set is still parked (it stays parked until released below).
            assertThat(hit.cacheHit()).isTrue();
            assertThat(slow.isDone()).isFalse();
            postgres.releaseHeld();
            assertThat(slow.get(10, TimeUnit.SECONDS).services()).hasSize(3);
        } finally {
            postgres.releaseHeld();
            pool.shutdownNow();
        }
    }

    @Test
    void drainWaitsForTheCallUnderWayAndRefusesNewOnesRetryably() throws Exception {
        postgres.holdReadinessWhen(c -> true);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<EnsureOutcome.Ready> underWay = pool.submit(() -> ensure("dev-1", shop));
            assertThat(postgres.awaitHeld(Duration.ofSeconds(10)))
                    .as("the call is provisioning")
                    .isTrue();
            Future<Integer> draining = pool.submit(() -> manager.drain(Duration.ofSeconds(10)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!manager.draining() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            EnsureOutcome late = manager.ensure(request("dev-2", shop, List.of(), Map.of()));

            assertThat(late).isInstanceOfSatisfying(EnsureOutcome.Failed.class, f -> {
                assertThat(f.retryable()).isTrue();
                assertThat(f.reason()).contains("stopping");
            });
            assertThat(draining.isDone())
                    .as("drain waits for the call under way")
                    .isFalse();
            postgres.releaseHeld();
            assertThat(draining.get(10, TimeUnit.SECONDS))
                    .as("calls still under way")
                    .isZero();
            assertThat(underWay.get(10, TimeUnit.SECONDS).services()).hasSize(3);
            assertThat(manager.removeUnsettled())
                    .as("the finished call's set is held, nothing is left unsettled")
                    .isZero();
            assertThat(manager.ledger().ids(ContainerLedger.Reason.HELD)).hasSize(3);
        } finally {
            postgres.releaseHeld();
            pool.shutdownNow();
        }
    }

    @Test
    void removeUnsettledRemovesWhatTheLedgerHoldsAsStartingOrClaimed() throws Exception {
        ensure("dev-1", shop);
        String stray = runtime.start(new RunRequest(
                        "stray",
                        new ContainerSpec("stub/postgres:1", Map.of(), List.of(), "/data", 1),
                        SandboxLabels.forService("test-instance", "dev-2", "shop", "postgres", 0L),
                        settings.limits(),
                        settings.network(),
                        Set.of()))
                .id();
        manager.ledger().enter(stray, ContainerLedger.Reason.IN_FLIGHT, "dev-2");

        assertThat(manager.removeUnsettled()).isEqualTo(1);

        assertThat(runtime.containerIds()).doesNotContain(stray).hasSize(3);
        assertThat(manager.ledger().ownedIds()).hasSize(3);
    }

    @Test
    void leftoverContainersOfTheAgentAreRemovedWhenAFreshSetIsProvisioned() throws Exception {
        SandboxManager before = new SandboxManager(
                EngineRegistry.of(List.of(postgres, redis, mongo)),
                new ServiceProvisioner(runtime, settings, SecretSource.secure(), Clock.systemUTC()),
                Clock.systemUTC());
        EnsureOutcome.Ready old = (EnsureOutcome.Ready) before.ensure(request("dev-1", shop, List.of(), Map.of()));
        before.close(); // a restart: the cache is gone, the containers are not

        EnsureOutcome.Ready fresh = ensure("dev-1", shop);

        // Removed in the background once the new set is ready (off the answer's path).
        List<String> oldIds =
                old.services().stream().map(ServiceInstance::containerId).toList();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (runtime.containerIds().stream().anyMatch(oldIds::contains) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(runtime.containerIds()).doesNotContainAnyElementsOf(oldIds);
        assertThat(runtime.list(SandboxLabels.ofAgent("test-instance", "dev-1")))
                .hasSize(3);
        assertThat(fresh.cacheHit()).isFalse();
    }

    @Test
    void aFeatureAskedForOnALiveSandboxIsActivatedWithoutATeardown() throws Exception {
        ServiceInstance before = ensure("dev-1", shop, "redis").services().get(0);
        runtime.resetCounts();

        EnsureOutcome outcome =
                manager.ensure(request("dev-1", shop, List.of("redis"), Map.of("redis", List.of("search"))));

        ServiceInstance after = ((EnsureOutcome.Ready) outcome).services().get(0);
        assertThat(after.containerId()).isEqualTo(before.containerId());
        assertThat(after.features()).containsExactly("search");
        assertThat(runtime.startCount()).isZero();
        assertThat(runtime.removeCount()).isZero();
        assertThat(runtime.execCalls()).extracting(c -> c.command()).containsExactly(List.of("activate", "search"));
    }

    @Test
    void servicesAddedToTheProjectAreProvisionedWithoutTouchingRunningOnes() throws Exception {
        Project small = new Project("shop", "Shop", List.of("postgres"), Map.of());
        ServiceInstance pg = ensure("dev-1", small).services().get(0);

        EnsureOutcome.Ready grown = ensure("dev-1", shop, "postgres", "redis");

        assertThat(grown.services().get(0).containerId()).isEqualTo(pg.containerId());
        assertThat(grown.services().get(1).service()).isEqualTo("redis");
        assertThat(runtime.runningCount()).isEqualTo(3);
    }

    @Test
    void aFailedServiceRemovesTheWholePartialSetAndIsRetryable() throws Exception {
        runtime.markImageMissing("stub/redis:1");

        EnsureOutcome outcome = manager.ensure(request("dev-1", shop, List.of("postgres"), Map.of()));

        assertThat(outcome).isInstanceOf(EnsureOutcome.Failed.class);
        EnsureOutcome.Failed failed = (EnsureOutcome.Failed) outcome;
        assertThat(failed.retryable()).isTrue();
        assertThat(failed.reason())
                .contains("redis sandbox for agent dev-1 could not start")
                .contains("stub/redis:1");
        assertThat(runtime.containerIds()).isEmpty();
        assertThat(manager.find("dev-1")).isEmpty();
    }

    @Test
    void aFeatureMissingFromTheImageFailsNonRetryablyAndLeavesNothing() throws Exception {
        runtime.onExec(List.of("activate", "vector"), new ExecResult(3, "", "extension \"vector\" is not available"));

        EnsureOutcome outcome =
                manager.ensure(request("dev-1", shop, List.of("postgres"), Map.of("postgres", List.of("vector"))));

        EnsureOutcome.Failed failed = (EnsureOutcome.Failed) outcome;
        assertThat(failed.retryable()).isFalse();
        assertThat(failed.reason())
                .contains("'vector'")
                .contains("stub/postgres:1")
                .contains("container removed");
        assertThat(runtime.containerIds()).isEmpty();
    }

    @Test
    void aContainerThatExitsWhileStartingIsDiagnosedAndRemoved() throws Exception {
        runtime.exitOnStart("stub/mongo:1", 137);

        EnsureOutcome.Failed failed =
                (EnsureOutcome.Failed) manager.ensure(request("dev-1", shop, List.of(), Map.of()));

        assertThat(failed.reason())
                .contains("mongo sandbox for agent dev-1 not ready")
                .contains("exited with code 137")
                .contains("last log lines")
                .contains("container removed");
        assertThat(runtime.containerIds()).isEmpty();
    }

    @Test
    void theLedgerKnowsEveryContainerOfACallAndWhyAtEachStep() throws Exception {
        ContainerLedger ledger = manager.ledger();
        postgres.holdReadinessWhen(c -> true);
        ExecutorService calls = Executors.newSingleThreadExecutor();
        try {
            Future<EnsureOutcome.Ready> call = calls.submit(() -> ensure("dev-1", shop));
            assertThat(postgres.awaitHeld(Duration.ofSeconds(10)))
                    .as("postgres is parked in its readiness")
                    .isTrue();
            // Postgres is still becoming ready; its siblings become ready and wait for it.
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (ledger.ids(ContainerLedger.Reason.PENDING).size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(ledger.entries())
                    .extracting(ContainerLedger.Entry::reason, ContainerLedger.Entry::owner)
                    .containsExactlyInAnyOrder(
                            tuple(ContainerLedger.Reason.IN_FLIGHT, "dev-1"),
                            tuple(ContainerLedger.Reason.PENDING, "dev-1"),
                            tuple(ContainerLedger.Reason.PENDING, "dev-1"));
            assertThat(ledger.ownedIds()).containsExactlyInAnyOrderElementsOf(runtime.containerIds());

            postgres.releaseHeld();
            EnsureOutcome.Ready ready = call.get(10, TimeUnit.SECONDS);

            assertThat(ledger.ids(ContainerLedger.Reason.HELD))
                    .containsExactlyInAnyOrderElementsOf(runtime.containerIds())
                    .contains(ready.services().get(0).containerId())
                    .hasSize(3);
            assertThat(ledger.entries())
                    .extracting(ContainerLedger.Entry::owner)
                    .containsOnly("dev-1");
        } finally {
            postgres.releaseHeld();
            calls.shutdownNow();
        }

        manager.release("dev-1");

        assertThat(ledger.ownedIds()).isEmpty();
    }

    @Test
    void aFailedCallLeavesNothingInTheLedger() throws Exception {
        runtime.markImageMissing("stub/redis:1");

        assertThat(manager.ensure(request("dev-1", shop, List.of(), Map.of())))
                .isInstanceOf(EnsureOutcome.Failed.class);

        assertThat(manager.ledger().ownedIds()).isEmpty();
    }

    @Test
    void releaseRemovesTheAgentsContainersAndIsIdempotent() throws Exception {
        ensure("dev-1", shop);
        ensure("dev-2", shop);

        assertThat(manager.release("dev-1")).isEqualTo(3);
        assertThat(manager.release("dev-1")).isZero();

        assertThat(manager.find("dev-1")).isEmpty();
        assertThat(runtime.list(SandboxLabels.ofAgent("test-instance", "dev-1")))
                .isEmpty();
        assertThat(runtime.list(SandboxLabels.ofAgent("test-instance", "dev-2")))
                .hasSize(3);
    }

    @Test
    void containersCarryOwnershipLabelsAndNeverTheAgentsPassword() throws Exception {
        ServiceInstance pg = ensure("dev-1", shop, "postgres").services().get(0);

        RunRequest request = runtime.request(pg.containerId()).orElseThrow();
        assertThat(request.labels())
                .containsEntry("roboco.sandbox", "1")
                .containsEntry("roboco.sandbox.agent", "dev-1")
                .containsEntry("roboco.sandbox.service", "postgres")
                .containsEntry("roboco.sandbox.project", "shop")
                .containsEntry("roboco.sandbox.instance", "test-instance")
                .containsKey("roboco.sandbox.created");
        assertThat(placesHolding(request, pg.credentials().password()))
                .as("where the agent's password is")
                .isEmpty();
        assertThat(placesHolding(request, pg.credentials().adminPassword()))
                .as("where the admin password is")
                .containsExactly("env STUB_ADMIN_PASSWORD");
    }

    @Test
    void theOwnershipCheckFindsAPasswordWhereverTheRequestCarriesIt() throws Exception {
        ServiceInstance pg = ensure("dev-1", shop, "postgres").services().get(0);
        RunRequest clean = runtime.request(pg.containerId()).orElseThrow();
        String secret = pg.credentials().password();
        Map<String, String> env = new HashMap<>(clean.spec().env());
        env.put("LEAK", "x" + secret);
        List<String> command = new ArrayList<>(clean.spec().command());
        command.add("--password=" + secret);
        Map<String, String> labels = new HashMap<>(clean.labels());
        labels.put("note", secret);
        RunRequest leaky = new RunRequest(
                clean.name() + "-" + secret,
                new ContainerSpec(
                        clean.spec().image(),
                        env,
                        command,
                        clean.spec().dataDir(),
                        clean.spec().port()),
                labels,
                clean.limits(),
                clean.network(),
                clean.capabilities());

        assertThat(placesHolding(leaky, secret)).containsExactlyInAnyOrder("name", "env LEAK", "command", "label note");
    }

    /** Every part of a container request that holds {@code secret}: its name, env values, command, labels, image, data dir. */
    private static List<String> placesHolding(RunRequest request, String secret) {
        List<String> places = new ArrayList<>();
        if (request.name().contains(secret)) {
            places.add("name");
        }
        request.spec().env().forEach((k, v) -> {
            if (k.contains(secret) || v.contains(secret)) {
                places.add("env " + k);
            }
        });
        if (request.spec().command().stream().anyMatch(a -> a.contains(secret))) {
            places.add("command");
        }
        request.labels().forEach((k, v) -> {
            if (k.contains(secret) || v.contains(secret)) {
                places.add("label " + k);
            }
        });
        if (request.spec().image().contains(secret) || request.spec().dataDir().contains(secret)) {
            places.add("image or data dir");
        }
        return places;
    }
}
