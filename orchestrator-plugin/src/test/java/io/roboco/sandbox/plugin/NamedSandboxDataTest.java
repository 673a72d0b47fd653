package io.roboco.sandbox.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.data.DataOutcome;
import io.roboco.sandbox.data.SandboxData;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.lifecycle.Bookkeeping;
import io.roboco.sandbox.lifecycle.Capacity;
import io.roboco.sandbox.lifecycle.Lifetimes;
import io.roboco.sandbox.lifecycle.SandboxBook;
import io.roboco.sandbox.manager.LiveSandboxes;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.SandboxName;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.LockWaiters;
import io.roboco.sandbox.testkit.StubEngine;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Data operations on named sandboxes, over the fakes: a deletion waits for an operation holding the sandbox's lock
 * (forced with a latch), an operation after the deletion is a conflict, and a named sandbox whose services this process
 * does not hold (taken on after a restart without re-adoption) is refused saying why, touching nothing.
 */
class NamedSandboxDataTest {
    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final InMemorySettingsStore store = new InMemorySettingsStore();
    private final EngineRegistry registry = EngineRegistry.of(List.of(new StubEngine("postgres", Set.of())));
    private final ServiceProvisioner provisioner = new ServiceProvisioner(
            runtime,
            ProvisionSettings.defaults("inst-a").withReadyTimeout(Duration.ofSeconds(2)),
            SecretSource.secure(),
            Clock.systemUTC());
    private final LiveSandboxes live = new LiveSandboxes();
    private final SandboxBook book = Bookkeeping.open(
            store,
            "inst-a",
            new Lifetimes(Duration.ofHours(1), Duration.ofHours(2)),
            3,
            new Capacity(10, () -> provisioner.ledger().ownedIds().size()),
            Clock.systemUTC(),
            provisioner.ledger(),
            live);
    private final SandboxManager manager = live.manager(registry, provisioner, Clock.systemUTC(), null, book);
    private final SandboxPlugin plugin = withRecords(manager, book);
    private final Sandboxes sandboxes = plugin.sandboxes().orElseThrow();

    /** A plugin keeping records in {@code book}, as the builder wires one (without its extensions). */
    private SandboxPlugin withRecords(SandboxManager m, SandboxBook b) {
        return new SandboxPlugin(
                registry,
                m,
                store,
                true,
                OrchestratorHandle.running(),
                Clock.systemUTC(),
                new PluginWiring(b, null, SandboxEvents.none(), null, false, false, () -> {}, List.of(), List.of()));
    }

    @AfterEach
    void close() {
        plugin.close();
    }

    private SandboxRecord named(String name) throws InterruptedException {
        store.saveProject(new Project("shop", "Shop", List.of("postgres"), Map.of()));
        Sandboxes.CreateOutcome outcome = sandboxes.create(
                new Sandboxes.CreateRequest("ci-1", "shop", List.of(), Map.of(), name, null, Map.of()));
        assertThat(outcome).isInstanceOf(Sandboxes.CreateOutcome.Created.class);
        return ((Sandboxes.CreateOutcome.Created) outcome).record();
    }

    @Test
    void theFrontDoorsReleaseEndsTheSandboxItNamesByItsRecordAndOnlyForItsOwner() throws Exception {
        SandboxRecord record = named("scratch");

        SandboxService.ReleaseOutcome other =
                plugin.service().release(SandboxService.Release.byAgent("dev-9", record.id()));
        assertThat(other).isInstanceOf(SandboxService.ReleaseOutcome.NotReleased.class);
        assertThat(((SandboxService.ReleaseOutcome.NotReleased) other).refusal().reason())
                .contains("not one of dev-9's");
        assertThat(book.namedServices(record.id()))
                .as("another agent's release touched nothing")
                .isPresent();

        SandboxService.ReleaseOutcome own =
                plugin.service().release(SandboxService.Release.byAgent("ci-1", record.id()));
        assertThat(own).isEqualTo(new SandboxService.ReleaseOutcome.Ended(record.id(), true, 1));
        assertThat(store.findSandbox(record.id()).orElseThrow().deleted()).isNotNull();
        assertThat(book.namedServices(record.id())).isEmpty();
        assertThat(runtime.runningCount()).as("its container removed").isZero();

        assertThat(plugin.service().release(SandboxService.Release.byAgent("ci-1", record.id())))
                .as("again: already gone")
                .isEqualTo(new SandboxService.ReleaseOutcome.Ended(record.id(), false, 0));
    }

    @Test
    void theFrontDoorsEnsureOfANameCreatesItOnceThenAnswersTheSameSandboxAgainEachAuditedOnce() throws Exception {
        store.saveProject(new Project("shop", "Shop", List.of("postgres"), Map.of()));
        store.saveAgent(new Agent("dev-1", "developer", "shop", "t-1"));
        SandboxName scratch = new SandboxName("scratch");

        SandboxDecision first = plugin.service()
                .ensure(new SandboxService.Ensure(
                        "dev-1", scratch, List.of(), Map.of(), Duration.ofMinutes(20), Map.of("purpose", "x"), null));
        assertThat(first).isInstanceOf(SandboxDecision.Granted.class);
        SandboxDecision.Granted created = (SandboxDecision.Granted) first;
        SandboxRecord record = created.record();
        assertThat(record).as("a named sandbox is answered with its record").isNotNull();
        assertThat(created.cacheHit()).isFalse();
        assertThat(record.name()).isEqualTo("scratch");
        assertThat(record.owner()).isEqualTo("dev-1");
        assertThat(record.labels()).containsEntry("purpose", "x");
        assertThat(Duration.between(record.created(), record.expires()))
                .as("its fixed ttl")
                .isEqualTo(Duration.ofMinutes(20));

        SandboxDecision again = plugin.service()
                .ensure(new SandboxService.Ensure("dev-1", scratch, List.of(), Map.of(), null, null, null));
        assertThat(again).isInstanceOf(SandboxDecision.Granted.class);
        SandboxDecision.Granted same = (SandboxDecision.Granted) again;
        assertThat(same.cacheHit()).isTrue();
        assertThat(same.record().id()).isEqualTo(record.id());
        assertThat(same.sandboxes().get(0).env())
                .as("the same credentials")
                .isEqualTo(created.sandboxes().get(0).env());
        assertThat(runtime.runningCount()).as("one container: created once").isEqualTo(1);
        assertThat(manager.find("dev-1"))
                .as("the verb set is another sandbox, not made")
                .isEmpty();
        assertThat(store.recent("dev-1", "granted", 10))
                .extracting(a -> a.verb())
                .as("one record per call: the create's, then the answer again's")
                .containsExactlyInAnyOrder(Sandboxes.CREATE_VERB, "request_sandbox");

        assertThatThrownBy(() -> new SandboxService.Ensure(
                        "dev-1", null, List.of(), Map.of(), Duration.ofMinutes(5), null, null))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("'ttl' applies to a named sandbox");
    }

    @Test
    void aDeletionWaitsForAnOperationHoldingTheSandboxsLockAndAnOperationAfterItIsAConflict() throws Exception {
        SandboxRecord record = named("migration");
        assertThat(book.namedServices(record.id()))
                .hasValueSatisfying(s -> assertThat(s).containsOnlyKeys("postgres"));
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        // What a checkpoint or rewind does: run under the named sandbox's lock.
        CompletableFuture<Boolean> operation = CompletableFuture.supplyAsync(() -> {
            try {
                return manager.underLock(SandboxData.lockKey(record.id()), () -> {
                    holding.countDown();
                    try {
                        return done.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                });
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Sandboxes.Deletion> deletion = CompletableFuture.supplyAsync(() -> {
            try {
                return sandboxes.delete(record.id(), "test");
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        LockWaiters.await("io.roboco.sandbox.manager.SandboxManager", "endIf", 1, Duration.ofSeconds(30));
        assertThat(store.findSandbox(record.id()).orElseThrow().deleted())
                .as("not deleted while the operation holds the lock")
                .isNull();
        assertThat(runtime.runningCount()).isEqualTo(1);

        done.countDown();
        assertThat(operation.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(deletion.get(30, TimeUnit.SECONDS)).isEqualTo(Sandboxes.Deletion.DELETED);
        assertThat(runtime.runningCount()).isZero();
        assertThat(book.namedServices(record.id())).isEmpty();
        assertThatThrownBy(() -> sandboxes.dataOperation(record.id(), SandboxData.CHECKPOINT, "cp"))
                .isInstanceOf(Sandboxes.Conflict.class)
                .hasMessageContaining(record.id())
                .hasMessageContaining("deleted");
        assertThatThrownBy(() -> sandboxes.dataOperation("sbx_nosuch", SandboxData.CHECKPOINT, "cp"))
                .isInstanceOf(Sandboxes.NotFound.class);
    }

    @Test
    void aNamedSandboxWhoseServicesThisProcessDoesNotHoldIsRefusedSayingWhy() throws Exception {
        SandboxRecord record = named("old");
        // A later process that took the record on without re-adoption (ROBOCO_SANDBOX_READOPT=false) holds no services.
        LiveSandboxes laterLive = new LiveSandboxes();
        SandboxBook later = Bookkeeping.open(
                store,
                "inst-a",
                new Lifetimes(Duration.ofHours(1), Duration.ofHours(2)),
                3,
                new Capacity(10, () -> 0),
                Clock.systemUTC(),
                provisioner.ledger(),
                laterLive);
        later.reconcileAtStart();
        assertThat(later.namedServices(record.id())).isEmpty();
        SandboxPlugin next =
                withRecords(laterLive.manager(registry, provisioner, Clock.systemUTC(), null, later), later);
        try {
            DataOutcome outcome =
                    next.sandboxes().orElseThrow().dataOperation(record.id(), SandboxData.SNAPSHOT_SCHEMA, "before");
            assertThat(outcome)
                    .isInstanceOfSatisfying(
                            DataOutcome.Refused.class,
                            r -> assertThat(r.reason())
                                    .contains(
                                            "does not hold the credentials of named sandbox " + record.id(),
                                            "ROBOCO_SANDBOX_READOPT=false"));
            assertThat(store.snapshotNames(record.id())).isEmpty();
            assertThat(store.recent("ci-1", "refused", 10))
                    .anySatisfy(a -> assertThat(a.verb()).isEqualTo(SandboxData.SNAPSHOT_SCHEMA));
        } finally {
            next.manager().close();
        }
    }

    @Test
    void aBadNameIsRefusedBeforeTheLockOrTheSandboxIsTouched() throws Exception {
        SandboxRecord record = named("named");
        DataOutcome outcome = sandboxes.dataOperation(record.id(), SandboxData.CHECKPOINT, "Bad Name!");
        assertThat(outcome)
                .isInstanceOfSatisfying(
                        DataOutcome.Refused.class, r -> assertThat(r.reason()).contains("checkpoint name"));
    }
}
