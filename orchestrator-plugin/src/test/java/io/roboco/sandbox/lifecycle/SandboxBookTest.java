package io.roboco.sandbox.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.manager.Admission;
import io.roboco.sandbox.manager.EnsureOutcome;
import io.roboco.sandbox.manager.LiveSandboxes;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.settings.ContainerRef;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.OwnedSandbox;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.MutableClock;
import io.roboco.sandbox.testkit.StubEngine;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The verb set's record, sliding TTL, quota and capacity over the fake runtime, with a clock the test moves. */
class SandboxBookTest {
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-05T10:00:00Z"));
    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final InMemorySettingsStore store = new InMemorySettingsStore();
    private final ServiceProvisioner provisioner = new ServiceProvisioner(
            runtime,
            ProvisionSettings.defaults("inst-a").withReadyTimeout(Duration.ofSeconds(2)),
            SecretSource.secure(),
            clock);
    private final EngineRegistry registry = EngineRegistry.of(List.of(
            new StubEngine("postgres", Set.of()),
            new StubEngine("redis", Set.of()),
            new StubEngine("mongo", Set.of())));
    private SandboxManager manager = new SandboxManager(registry, provisioner, clock);
    private final Project shop = new Project("shop", "Shop", List.of("postgres", "redis"), Map.of());

    @AfterEach
    void close() {
        manager.close();
    }

    private SandboxBook book(int perOwner, int capacity) {
        LiveSandboxes live = new LiveSandboxes();
        SandboxBook book = Bookkeeping.open(
                store,
                "inst-a",
                new Lifetimes(Duration.ofHours(1), Duration.ofHours(2)),
                perOwner,
                new Capacity(capacity, () -> provisioner.ledger().ownedIds().size()),
                clock,
                provisioner.ledger(),
                live);
        manager.close();
        manager = live.manager(registry, provisioner, clock, null, book);
        return book;
    }

    private EnsureOutcome ensure(String agent, Project project) throws InterruptedException {
        SandboxRequest.Validation v =
                SandboxRequest.validate(registry, provisioner.settings(), agent, project, List.of(), Map.of());
        return manager.ensure(((SandboxRequest.Validation.Valid) v).request(), Map.of("task", "T-1"));
    }

    private SandboxRecord only(String owner) {
        List<SandboxRecord> all = store.sandboxes(new SandboxQuery(owner, null, Map.of(), null, null, clock.instant()));
        assertThat(all).hasSize(1);
        return all.get(0);
    }

    @Test
    void firstCallRecordsTheAgentsDefaultSandboxWithItsContainersAndNoCredential() throws Exception {
        book(3, 10);
        EnsureOutcome.Ready ready = (EnsureOutcome.Ready) ensure("dev-1", shop);
        SandboxRecord r = only("dev-1");
        assertThat(r.id()).startsWith("sbx_").isEqualTo(ready.sandboxId());
        assertThat(r.kind()).isEqualTo(SandboxRecord.Kind.DEFAULT);
        assertThat(r.name()).isEqualTo("default");
        assertThat(r.project()).isEqualTo("shop");
        assertThat(r.labels()).isEqualTo(Map.of("task", "T-1"));
        assertThat(r.services()).containsExactly("postgres", "redis");
        assertThat(r.containers()).hasSize(2);
        assertThat(r.created()).isEqualTo(clock.instant());
        assertThat(r.expires())
                .isEqualTo(clock.instant().plus(Duration.ofHours(1)))
                .isEqualTo(ready.expires());
        assertThat(r.maxExpires()).isEqualTo(clock.instant().plus(Duration.ofHours(2)));
        assertThat(r.toString())
                .doesNotContain(ready.services().get(0).credentials().password());
    }

    @Test
    void aCacheHitWritesTheExpiryOnlyOnceItWouldSlideByMoreThanTheSlack() throws Exception {
        book(3, 10);
        ensure("dev-1", shop);
        Instant first = only("dev-1").expires();
        clock.advance(Duration.ofSeconds(40)); // slack = min(a tenth of the 1h TTL, 1 min) = 1 min: not written
        assertThat(((EnsureOutcome.Ready) ensure("dev-1", shop)).cacheHit()).isTrue();
        assertThat(only("dev-1").expires()).isEqualTo(first);
        clock.advance(Duration.ofSeconds(30));
        EnsureOutcome.Ready hit = (EnsureOutcome.Ready) ensure("dev-1", shop);
        assertThat(hit.cacheHit()).isTrue();
        assertThat(only("dev-1").expires())
                .isEqualTo(clock.instant().plus(Duration.ofHours(1)))
                .isEqualTo(hit.expires());
    }

    @Test
    void theExpirySlidesWithUseButNeverPastTheMaxThenAFreshSetSaysTheOldOneExpired() throws Exception {
        book(3, 10);
        EnsureOutcome.Ready first = (EnsureOutcome.Ready) ensure("dev-1", shop);
        for (int i = 0; i < 7; i++) {
            clock.advance(Duration.ofMinutes(15));
            EnsureOutcome.Ready hit = (EnsureOutcome.Ready) ensure("dev-1", shop);
            assertThat(hit.cacheHit()).isTrue();
            assertThat(hit.expires()).isBeforeOrEqualTo(first.expires().plus(Duration.ofHours(1)));
        }
        clock.advance(Duration.ofMinutes(16)); // 2h01m after creation: past the max
        EnsureOutcome.Ready fresh = (EnsureOutcome.Ready) ensure("dev-1", shop);
        assertThat(fresh.cacheHit()).isFalse();
        assertThat(fresh.expiredPrevious()).isEqualTo(first.sandboxId());
        assertThat(fresh.sandboxId()).isNotEqualTo(first.sandboxId());
        assertThat(fresh.services().get(0).credentials())
                .isNotEqualTo(first.services().get(0).credentials());
        SandboxRecord old = store.findSandbox(first.sandboxId()).orElseThrow();
        assertThat(old.state(clock.instant())).isEqualTo(SandboxState.DELETED);
        assertThat(old.deletedReason()).isEqualTo("expired");
        assertThat(runtime.runningCount()).isEqualTo(2);
    }

    @Test
    void anOwnerOverQuotaIsRefusedWithItsLiveSandboxesAndNoContainerStarts() throws Exception {
        SandboxBook book = book(1, 10);
        Admission.Decision named =
                book.reserveNamed("dev-1", shop, List.of("postgres"), "before", Map.of("run", "1"), null);
        assertThat(named).isInstanceOf(Admission.Decision.Admitted.class);
        int starts = runtime.startCount();
        EnsureOutcome outcome = ensure("dev-1", shop);
        assertThat(outcome).isInstanceOf(EnsureOutcome.Denied.class);
        Admission.Decision.Denied denied = ((EnsureOutcome.Denied) outcome).denial();
        assertThat(denied.refusal()).isTrue();
        assertThat(denied.retryable()).isFalse();
        assertThat(denied.code()).isEqualTo("owner_quota");
        String id = ((Admission.Decision.Admitted) named).sandboxId();
        assertThat(denied.ownerSandboxes()).extracting(OwnedSandbox::id).containsExactly(id);
        assertThat(denied.reason())
                .contains(id)
                .contains("before")
                .contains("run=1")
                .contains("ROBOCO_SANDBOX_MAX_PER_OWNER");
        assertThat(runtime.startCount()).isEqualTo(starts);
        assertThat(store.sandboxes(new SandboxQuery("dev-1", null, Map.of(), null, null, clock.instant())))
                .hasSize(1);
    }

    @Test
    void atCapacityTheRequestIsRetryableWithTheNumbersAndLeavesNothing() throws Exception {
        book(3, 2);
        Project three = new Project("big", "Big", List.of("postgres", "redis", "mongo"), Map.of());
        EnsureOutcome outcome = ensure("dev-1", three);
        Admission.Decision.Denied denied = ((EnsureOutcome.Denied) outcome).denial();
        assertThat(denied.refusal()).isFalse();
        assertThat(denied.retryable()).isTrue();
        assertThat(denied.reason()).startsWith("capacity: 0 of 2 sandbox containers live; this request needs 3");
        assertThat(runtime.startCount()).isZero();
        assertThat(store.sandboxes(new SandboxQuery(null, null, Map.of(), null, null, clock.instant())))
                .isEmpty();
    }

    @Test
    void releaseMarksTheRecordDeletedAndFreesTheQuota() throws Exception {
        book(1, 10);
        String id = ((EnsureOutcome.Ready) ensure("dev-1", shop)).sandboxId();
        manager.release("dev-1");
        assertThat(store.findSandbox(id).orElseThrow().deletedReason()).isEqualTo("released");
        assertThat(ensure("dev-1", shop)).isInstanceOf(EnsureOutcome.Ready.class);
    }

    @Test
    void atStartTheVerbSetsOfAnEarlierProcessEndAndNamedSandboxesAreKept() throws Exception {
        SandboxBook first = book(3, 10);
        String verb = ((EnsureOutcome.Ready) ensure("dev-1", shop)).sandboxId();
        Admission.Decision.Admitted named = (Admission.Decision.Admitted)
                first.reserveNamed("dev-1", shop, List.of("postgres"), "ci", Map.of(), null);
        first.adoptNamed(named, Map.of());
        SandboxBook next = Bookkeeping.open(
                store,
                "inst-a",
                Lifetimes.defaults(),
                3,
                Capacity.unlimited(),
                clock,
                provisioner.ledger(),
                new LiveSandboxes());
        assertThat(next.reconcileAtStart()).isEqualTo(1);
        assertThat(store.findSandbox(verb).orElseThrow().state(clock.instant())).isEqualTo(SandboxState.DELETED);
        assertThat(store.sandboxes(
                        new SandboxQuery(null, null, Map.of(), EnumSet.of(SandboxState.LIVE), null, clock.instant())))
                .extracting(SandboxRecord::id)
                .containsExactly(named.sandboxId());
    }

    private static ServiceInstance instance(String service, String containerId, String major) {
        return new ServiceInstance(
                service,
                "img:" + major,
                containerId,
                "name-" + containerId,
                new Endpoint("127.0.0.1", 5432),
                new Credentials("a", "pa", "u", "pu", "d"),
                Set.of(),
                Instant.EPOCH,
                major);
    }

    @Test
    void eachContainerIsRecordedWithItsMajorAndTheSeedItStartedWithWhichAGrowingSetKeeps() {
        List<ContainerRef> first = SandboxBook.refs(
                List.of(instance("postgres", "c1", "17")), List.of(), Map.of("postgres", "sql (12 bytes)"));
        assertThat(first).singleElement().satisfies(c -> {
            assertThat(c.major()).isEqualTo("17");
            assertThat(c.seed()).isEqualTo("sql (12 bytes)");
        });
        // The project's seed changed since; the set grows by redis: the postgres container still says what it started
        // with.
        List<ContainerRef> grown = SandboxBook.refs(
                List.of(instance("postgres", "c1", "17"), instance("redis", "c2", "")),
                first,
                Map.of("postgres", "clone of $SRC (schema only)"));
        assertThat(grown).extracting(ContainerRef::seed).containsExactly("sql (12 bytes)", "");
        assertThat(grown).extracting(ContainerRef::major).containsExactly("17", "");
        assertThat(SandboxBook.refs(List.of(instance("postgres", "c3", "15")), List.of(), null))
                .singleElement()
                .satisfies(c -> assertThat(c.seed()).as("no seed known").isEmpty());
    }
}
