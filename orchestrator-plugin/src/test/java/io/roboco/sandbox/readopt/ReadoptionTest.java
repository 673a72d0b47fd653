package io.roboco.sandbox.readopt;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.lifecycle.Bookkeeping;
import io.roboco.sandbox.lifecycle.Capacity;
import io.roboco.sandbox.lifecycle.Lifetimes;
import io.roboco.sandbox.lifecycle.SandboxBook;
import io.roboco.sandbox.manager.EnsureOutcome;
import io.roboco.sandbox.manager.LiveSandboxes;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.pool.PoolSizes;
import io.roboco.sandbox.pool.WarmPool;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.secrets.CredentialCipher;
import io.roboco.sandbox.secrets.KeyFile;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;
import io.roboco.sandbox.settings.SealedContainer;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.MutableClock;
import io.roboco.sandbox.testkit.StubEngine;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import javax.crypto.SecretKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Re-adoption over the fake runtime: one "process" hands out sandboxes and is abandoned without a shutdown (as by
 * {@code kill -9}); a second one, on the same store, runtime and instance, re-adopts what still works and closes the
 * rest.
 */
class ReadoptionTest {
    private static final String INSTANCE = "inst-a";
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-05T10:00:00Z"));
    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final InMemorySettingsStore store = new InMemorySettingsStore();
    private final StubEngine postgres = new StubEngine("postgres", Set.of("pg_trgm"));
    private final StubEngine redis = new StubEngine("redis", Set.of());
    private final EngineRegistry registry = EngineRegistry.of(List.of(postgres, redis));
    private final Project shop =
            new Project("shop", "Shop", List.of("postgres", "redis"), Map.of("postgres", List.of("pg_trgm")));
    private final SecretKey key = KeyFile.newKey();
    private final List<AuditRecord> audit = new CopyOnWriteArrayList<>();
    private final List<Process> processes = new ArrayList<>();

    /** One server process's parts over the shared store and runtime. */
    private final class Process implements AutoCloseable {
        final ServiceProvisioner provisioner = new ServiceProvisioner(
                runtime,
                ProvisionSettings.defaults(INSTANCE).withReadyTimeout(Duration.ofSeconds(2)),
                SecretSource.secure(),
                clock);
        final WarmPool pool;
        final SandboxManager manager;
        final SandboxBook book;
        final CredentialVault vault;

        Process(String instance, SecretKey sealingKey, Map<String, Integer> poolSizes) {
            LiveSandboxes live = new LiveSandboxes();
            book = Bookkeeping.open(
                    store,
                    instance,
                    new Lifetimes(Duration.ofHours(1), Duration.ofHours(2)),
                    3,
                    new Capacity(100, () -> provisioner.ledger().ownedIds().size()),
                    clock,
                    provisioner.ledger(),
                    live);
            vault = new CredentialVault(store, new CredentialCipher(sealingKey), instance);
            pool = poolSizes.isEmpty()
                    ? null
                    : new WarmPool(
                            registry,
                            provisioner,
                            new PoolSizes(poolSizes),
                            () -> Optional.of(() -> {}),
                            new SealedPool(vault));
            manager = live.manager(registry, provisioner, clock, pool, new SealingAdmission(book, vault));
            processes.add(this);
        }

        EnsureOutcome.Ready ensure(String agent) throws InterruptedException {
            SandboxRequest.Validation v =
                    SandboxRequest.validate(registry, provisioner.settings(), agent, shop, List.of(), Map.of());
            EnsureOutcome outcome = manager.ensure(((SandboxRequest.Validation.Valid) v).request());
            assertThat(outcome).isInstanceOf(EnsureOutcome.Ready.class);
            return (EnsureOutcome.Ready) outcome;
        }

        ReadoptionReport readopt(KeyStatus status, CredentialVault with) throws InterruptedException {
            return new Readoption(store, with, status, registry, provisioner, manager, book, pool, clock, audit::add)
                    .run();
        }

        ReadoptionReport readopt() throws InterruptedException {
            return readopt(KeyStatus.read(Path.of("/state/secret.key")), vault);
        }

        @Override
        public void close() {
            manager.close();
            if (pool != null) {
                pool.close();
            }
        }
    }

    @AfterEach
    void closeAll() {
        processes.forEach(Process::close);
    }

    private Process process() {
        return new Process(INSTANCE, key, Map.of());
    }

    private static ServiceInstance service(EnsureOutcome.Ready ready, String name) {
        return ready.services().stream()
                .filter(s -> s.service().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private List<SandboxRecord> records(SandboxState state) {
        return store.sandboxes(new SandboxQuery(null, null, Map.of(), EnumSet.of(state), null, clock.instant()));
    }

    @Test
    void aLiveSetIsReadoptedAndTheNextCallIsACacheHitWithTheSameCredentialsAndNoNewContainer() throws Exception {
        EnsureOutcome.Ready before = process().ensure("dev-1");
        assertThat(store.sealedOf(INSTANCE)).hasSize(2).allSatisfy(row -> {
            assertThat(row.sealed())
                    .startsWith("v1.")
                    .doesNotContain(service(before, row.service()).credentials().password());
            assertThat(row.sandboxId()).isEqualTo(before.sandboxId());
        });
        int started = runtime.startCount();

        Process next = process();
        ReadoptionReport report = next.readopt();
        EnsureOutcome.Ready after = next.ensure("dev-1");

        assertThat(report.readopted()).isEqualTo(1);
        assertThat(report.readoptedContainers()).isEqualTo(2);
        assertThat(report.closed()).isEmpty();
        assertThat(after.cacheHit()).isTrue();
        assertThat(after.sandboxId()).isEqualTo(before.sandboxId());
        for (String s : List.of("postgres", "redis")) {
            assertThat(service(after, s).credentials())
                    .isEqualTo(service(before, s).credentials());
            assertThat(service(after, s).containerId())
                    .isEqualTo(service(before, s).containerId());
        }
        assertThat(service(after, "postgres").features()).containsExactly("pg_trgm");
        assertThat(runtime.startCount()).as("containers created by the restart").isEqualTo(started);
        assertThat(next.provisioner.ledger().ids(ContainerLedger.Reason.HELD)).hasSize(2);
        assertThat(next.provisioner.ledger().ids(ContainerLedger.Reason.ADOPTING))
                .isEmpty();
        assertThat(audit).singleElement().satisfies(a -> {
            assertThat(a.verb()).isEqualTo(Readoption.AUDIT_VERB);
            assertThat(a.decision()).isEqualTo("readopted");
            assertThat(a.agent()).isEqualTo("dev-1");
        });
    }

    @Test
    void aSetWithADeadContainerIsClosedItsLeftoversRemovedAndTheNextCallProvisionsAfresh() throws Exception {
        EnsureOutcome.Ready before = process().ensure("dev-1");
        runtime.kill(service(before, "redis").containerId());

        Process next = process();
        ReadoptionReport report = next.readopt();

        assertThat(report.readopted()).isZero();
        assertThat(report.closed())
                .singleElement()
                .asString()
                .contains(before.sandboxId())
                .contains("redis container is not live");
        assertThat(runtime.containerIds())
                .as("the live postgres container went with its dead sibling")
                .isEmpty();
        assertThat(records(SandboxState.DELETED))
                .singleElement()
                .satisfies(r -> assertThat(r.deletedReason()).startsWith("closed at restart"));
        assertThat(store.sealedOf(INSTANCE))
                .as("a closed sandbox's credentials go with it")
                .isEmpty();

        EnsureOutcome.Ready fresh = next.ensure("dev-1");
        assertThat(fresh.cacheHit()).isFalse();
        assertThat(service(fresh, "postgres").credentials().password())
                .isNotEqualTo(service(before, "postgres").credentials().password());
        assertThat(audit)
                .singleElement()
                .satisfies(a -> assertThat(a.decision()).isEqualTo("closed"));
    }

    @Test
    void aServiceThatStopsAnsweringOnItsStoredCredentialIsDead() throws Exception {
        EnsureOutcome.Ready before = process().ensure("dev-1");
        postgres.markDead(service(before, "postgres").endpoint());

        ReadoptionReport report = process().readopt();

        assertThat(report.closed()).singleElement().asString().contains("postgres container is not live");
    }

    @Test
    void swappedOrTamperedCiphertextIsRefusedAndOnlyThoseSandboxesAreClosed() throws Exception {
        Process first = process();
        first.ensure("dev-1");
        first.ensure("dev-2");
        first.ensure("dev-3");
        List<SealedContainer> rows = store.sealedOf(INSTANCE);
        SealedContainer a = rows.stream()
                .filter(r -> r.owner().equals("dev-1") && r.service().equals("postgres"))
                .findFirst()
                .orElseThrow();
        SealedContainer b = rows.stream()
                .filter(r -> r.owner().equals("dev-2") && r.service().equals("postgres"))
                .findFirst()
                .orElseThrow();
        store.saveSealed(a.withSealed(b.sealed())); // another row's ciphertext
        SealedContainer c = rows.stream()
                .filter(r -> r.owner().equals("dev-3") && r.service().equals("redis"))
                .findFirst()
                .orElseThrow();
        char[] text = c.sealed().toCharArray();
        text[text.length - 5] = text[text.length - 5] == 'A' ? 'B' : 'A';
        store.saveSealed(c.withSealed(new String(text))); // a flipped bit

        Process next = process();
        ReadoptionReport report = next.readopt();

        assertThat(report.readopted()).as("dev-2's own rows are intact").isEqualTo(1);
        assertThat(report.closed())
                .hasSize(2)
                .anySatisfy(l -> assertThat(l).contains("dev-1").contains("altered or belongs to another row"))
                .anySatisfy(l -> assertThat(l).contains("dev-3"));
        assertThat(report.keyWarning()).contains("2 sealed credential(s)").contains("integrity check");
        assertThat(next.ensure("dev-1").cacheHit()).isFalse();
        assertThat(next.ensure("dev-2").cacheHit()).isTrue();
    }

    @Test
    void aWrongKeyFileClosesEverySealedSandboxWithAMessageNamingTheFileAndTheKeys() throws Exception {
        process().ensure("dev-1");
        SecretKey other = KeyFile.newKey();
        Process next = new Process(INSTANCE, other, Map.of());

        ReadoptionReport report = next.readopt(KeyStatus.read(Path.of("/state/secret.key")), next.vault);

        assertThat(report.closed()).hasSize(1);
        assertThat(report.keyWarning())
                .contains("/state/secret.key")
                .contains(KeyFile.fingerprint(key))
                .contains(KeyFile.fingerprint(other))
                .contains("treated as dead")
                .contains("next request_sandbox provisions a fresh set");
        assertThat(runtime.containerIds()).isEmpty();
        assertThat(next.ensure("dev-1").cacheHit()).isFalse();
    }

    @Test
    void anUnusableKeyClosesTheSealedSandboxesLoudlyAndNeverThrows() throws Exception {
        process().ensure("dev-1");
        Process next = process();

        ReadoptionReport report = next.readopt(
                KeyStatus.unusable(
                        Path.of("/state/secret.key"),
                        "the key file /state/secret.key cannot be read: AccessDeniedException"),
                null);

        assertThat(report.closed()).hasSize(1);
        assertThat(report.keyWarning())
                .contains("the key file /state/secret.key cannot be read")
                .contains("treated as dead")
                .contains("ROBOCO_SANDBOX_READOPT=false");
        assertThat(runtime.containerIds()).isEmpty();
    }

    @Test
    void anotherInstancesSandboxesOnTheSameStoreAreNeitherAdoptedNorClosed() throws Exception {
        Process mine = process();
        mine.ensure("dev-1");
        Process theirs = new Process("inst-b", KeyFile.newKey(), Map.of());
        theirs.ensure("dev-9");
        int containers = runtime.containerIds().size();

        ReadoptionReport report = process().readopt();

        assertThat(report.readopted()).isEqualTo(1);
        assertThat(report.closed()).isEmpty();
        assertThat(records(SandboxState.LIVE))
                .extracting(SandboxRecord::owner)
                .containsExactlyInAnyOrder("dev-1", "dev-9");
        assertThat(store.sealedOf("inst-b")).hasSize(2);
        assertThat(runtime.containerIds()).hasSize(containers);
    }

    @Test
    void aSandboxThatExpiredWhileTheServerWasDownIsClosed() throws Exception {
        process().ensure("dev-1");
        clock.advance(Duration.ofHours(3));

        ReadoptionReport report = process().readopt();

        assertThat(report.closed()).singleElement().asString().contains("expired");
        assertThat(runtime.containerIds()).isEmpty();
    }

    @Test
    void idlePoolContainersAreTakenBackIntoThePoolAndAClaimedOneStaysItsAgents() throws Exception {
        Process first = new Process(INSTANCE, key, Map.of("postgres", 2));
        first.pool.start();
        eventually(() -> first.pool.idle("postgres") == 2);
        EnsureOutcome.Ready claimed = first.ensure("dev-1");
        assertThat(service(claimed, "postgres").fromPool()).isTrue();
        eventually(() -> first.pool.idle("postgres") == 2);
        assertThat(store.sealedOf(INSTANCE).stream().filter(SealedContainer::pooled))
                .hasSize(2);
        assertThat(records(SandboxState.LIVE))
                .singleElement()
                .satisfies(r -> assertThat(r.containers())
                        .anySatisfy(c -> assertThat(c.fromPool()).isTrue()));
        int started = runtime.startCount();

        Process next = new Process(INSTANCE, key, Map.of("postgres", 1)); // the pool shrank across the restart
        ReadoptionReport report = next.readopt();
        next.pool.start();

        assertThat(report.readopted()).isEqualTo(1);
        assertThat(report.poolReadopted()).isEqualTo(1);
        assertThat(report.removed()).as("the pool's extra container").isEqualTo(1);
        assertThat(next.pool.idle("postgres")).isEqualTo(1);
        assertThat(next.ensure("dev-1").cacheHit()).isTrue();
        assertThat(next.provisioner.ledger().entry(service(claimed, "postgres").containerId()))
                .hasValueSatisfying(e -> assertThat(e.owner()).isEqualTo("dev-1"));
        assertThat(runtime.startCount()).isEqualTo(started);
    }

    private static void eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s");
            }
            Thread.sleep(10);
        }
    }
}
