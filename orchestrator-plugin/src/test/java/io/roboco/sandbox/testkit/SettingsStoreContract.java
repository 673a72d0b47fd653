package io.roboco.sandbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.SchemaDigest;
import io.roboco.sandbox.engine.SchemaObject;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.AgentToken;
import io.roboco.sandbox.settings.AuditPage;
import io.roboco.sandbox.settings.AuditQuery;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.ClientToken;
import io.roboco.sandbox.settings.ContainerRef;
import io.roboco.sandbox.settings.FlagStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.Quota;
import io.roboco.sandbox.settings.Reservation;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;
import io.roboco.sandbox.settings.SealedContainer;
import io.roboco.sandbox.settings.ServiceLimits;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.settings.StoredSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link SettingsStore} promises: the in-memory store, {@link FakeSettingsStore} and the JDBC
 * store (H2 and PostgreSQL) all pass it. A subclass supplies an empty store per test and, where
 * data persists, {@link #reopen()}. Times are millisecond-precise so any database can hold them exactly.
 */
public abstract class SettingsStoreContract {
    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00.123Z");

    protected SettingsStore store;

    /** A new, empty store. */
    protected abstract SettingsStore createStore() throws Exception;

    /**
     * A second, independent store on the same database as {@link #store} (another server sharing it); aborts
     * where a database cannot be shared.
     */
    protected SettingsStore openSecond() throws Exception {
        Assumptions.abort("this store cannot be shared by two servers");
        return null;
    }

    /** The store created last, opened again after {@link SettingsStore#close()}; aborts where nothing persists. */
    protected SettingsStore reopen() throws Exception {
        Assumptions.abort("this store does not persist across close");
        return null;
    }

    @BeforeEach
    protected void openStore() throws Exception {
        store = createStore();
    }

    @AfterEach
    protected void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    // --- projects ---------------------------------------------------------------------------

    @Test
    void savedProjectIsFoundById() {
        Project p = new Project(
                "shop",
                "Shop",
                List.of("postgres", "redis"),
                Map.of("postgres", List.of("pg_trgm")),
                Map.of("postgres", "17"),
                Map.of("postgres", new Seed.Clone("SHOP_DB_URL", 50)));
        store.saveProject(p);
        assertThat(store.findProject("shop")).contains(p);
    }

    @Test
    void savedProjectKeepsItsLimits() {
        Project p = new Project("big", "Big", List.of("postgres", "redis"), Map.of())
                .withLimits(Map.of(
                        "postgres",
                        new ServiceLimits(1L << 30, 512L << 20, 2_000_000_000L),
                        "redis",
                        new ServiceLimits(768L << 20, 0, 0)));
        store.saveProject(p);
        assertThat(store.findProject("big")).contains(p);
        store.saveProject(p.withLimits(Map.of()));
        assertThat(store.findProject("big").orElseThrow().limits()).isEmpty();
    }

    @Test
    void unknownProjectIsEmpty() {
        assertThat(store.findProject("nope")).isEmpty();
    }

    @Test
    void savingAgainReplacesTheProject() {
        store.saveProject(new Project("shop", "Shop", List.of("postgres"), Map.of("postgres", List.of("citext"))));
        Project replaced = new Project("shop", "Shop 2", List.of("redis", "mongo"), Map.of());
        store.saveProject(replaced);
        assertThat(store.findProject("shop")).contains(replaced);
        assertThat(store.allProjects()).containsExactly(replaced);
    }

    @Test
    void allProjectsListsEverySavedProject() {
        Project a = new Project("a", "A", List.of("postgres"), Map.of());
        Project b = new Project("b", null, List.of(), Map.of());
        store.saveProject(b);
        store.saveProject(a);
        assertThat(store.allProjects()).containsExactlyInAnyOrder(a, b);
    }

    @Test
    void projectWithEmptyServicesIsNotOptedIn() {
        store.saveProject(new Project("quiet", "Quiet", List.of(), Map.of()));
        Project found = store.findProject("quiet").orElseThrow();
        assertThat(found.optedIn()).isFalse();
        assertThat(found.services()).isEmpty();
    }

    @Test
    void extensionsMapRoundTrips() {
        Map<String, List<String>> ext = Map.of(
                "postgres", List.of("vector", "pg_trgm", "uuid-ossp"), "redis", List.of("search"), "mongo", List.of());
        store.saveProject(new Project("geo", "Geo \"maps\" & more", List.of("postgres", "redis", "mongo"), ext));
        Project found = store.findProject("geo").orElseThrow();
        assertThat(found.extensions()).isEqualTo(ext);
        assertThat(found.extensionsFor("postgres")).containsExactly("vector", "pg_trgm", "uuid-ossp");
        assertThat(found.services()).containsExactly("postgres", "redis", "mongo");
        assertThat(found.name()).isEqualTo("Geo \"maps\" & more");
    }

    // --- flags ------------------------------------------------------------------------------

    @Test
    void flagIsUnsetUntilStored() {
        assertThat(store.storedFlag(FlagStore.SANDBOX_DB_ENABLED)).isEmpty();
    }

    @Test
    void storedFlagIsReadBackAndCanBeTurnedOff() {
        store.storeFlag(FlagStore.SANDBOX_DB_ENABLED, true);
        assertThat(store.storedFlag(FlagStore.SANDBOX_DB_ENABLED)).contains(true);
        store.storeFlag(FlagStore.SANDBOX_DB_ENABLED, false);
        assertThat(store.storedFlag(FlagStore.SANDBOX_DB_ENABLED)).contains(false);
        assertThat(store.storedFlag("OTHER_FLAG")).isEmpty();
    }

    // --- agents -----------------------------------------------------------------------------

    @Test
    void savedAgentIsFoundWithoutTask() {
        Agent dev = new Agent("dev-1", "developer", null, null);
        store.saveAgent(dev);
        assertThat(store.findAgent("dev-1")).contains(dev);
        assertThat(store.findAgent("dev-1").orElseThrow().hasActiveTask()).isFalse();
        assertThat(store.findAgent("dev-2")).isEmpty();
    }

    @Test
    void agentWithTaskReplacesAgentWithout() {
        Agent dev = new Agent("dev-1", "developer", "shop", null);
        store.saveAgent(dev);
        store.saveAgent(dev.withTask("shop", "TASK-7"));
        Agent found = store.findAgent("dev-1").orElseThrow();
        assertThat(found).isEqualTo(new Agent("dev-1", "developer", "shop", "TASK-7"));
        assertThat(found.hasActiveTask()).isTrue();
        assertThat(store.allAgents()).containsExactly(found);
    }

    @Test
    void deletedAgentIsGoneAndDeletingUnknownIsHarmless() {
        store.saveAgent(new Agent("dev-1", "developer", null, null));
        store.saveAgent(new Agent("qa-1", "qa", "shop", "T-1"));
        store.deleteAgent("dev-1");
        store.deleteAgent("never-was");
        assertThat(store.findAgent("dev-1")).isEmpty();
        assertThat(store.allAgents()).containsExactly(new Agent("qa-1", "qa", "shop", "T-1"));
    }

    // --- audit ------------------------------------------------------------------------------

    @Test
    void auditRecordRoundTripsEveryField() {
        AuditRecord r = record(0, "dev-1", "granted", List.of("postgres", "redis"));
        store.append(r);
        assertThat(store.recent(null, null, 10)).containsExactly(r);
    }

    @Test
    void auditRecordWithEmptyFieldsRoundTrips() {
        AuditRecord r = new AuditRecord(T0, null, null, "janitor", "sweep", null, null, 0);
        store.append(r);
        assertThat(store.recent(null, null, 10)).containsExactly(r);
    }

    @Test
    void recentIsNewestFirstAndHonoursLimit() {
        AuditRecord second = record(2, "dev-1", "granted", List.of());
        AuditRecord first = record(1, "dev-1", "refused", List.of());
        AuditRecord third = record(3, "dev-2", "granted", List.of());
        store.append(second);
        store.append(first);
        store.append(third);
        assertThat(store.recent(null, null, 10)).containsExactly(third, second, first);
        assertThat(store.recent(null, null, 2)).containsExactly(third, second);
        assertThat(store.recent(null, null, 0)).isEmpty();
    }

    /** A group commit (issue 21): every field of every record, in order, as separate appends would have written them. */
    @Test
    void appendAllWritesEveryRecordInOrder() {
        AuditRecord a = record(7, "dev-1", "granted", List.of("postgres"));
        AuditRecord b = new AuditRecord(T0.plusSeconds(7), null, null, "janitor", "sweep", null, null, 0);
        AuditRecord c = record(7, "dev-2", "refused", List.of("redis", "mongo"));
        store.appendAll(List.of(a, b, c));
        store.appendAll(List.of());
        assertThat(store.recent(null, null, 10)).containsExactly(c, b, a);
    }

    @Test
    void recordsWithTheSameTimeComeBackLastAppendedFirst() {
        AuditRecord a = record(5, "dev-1", "granted", List.of("postgres"));
        AuditRecord b = record(5, "dev-1", "released", List.of("postgres"));
        store.append(a);
        store.append(b);
        assertThat(store.recent(null, null, 10)).containsExactly(b, a);
    }

    @Test
    void recentFiltersByAgentAndDecision() {
        AuditRecord a = record(1, "dev-1", "granted", List.of());
        AuditRecord b = record(2, "dev-1", "refused", List.of());
        AuditRecord c = record(3, "dev-2", "refused", List.of());
        AuditRecord d = record(4, "dev-2", "granted", List.of());
        List.of(a, b, c, d).forEach(store::append);
        assertThat(store.recent("dev-1", null, 10)).containsExactly(b, a);
        assertThat(store.recent(null, "refused", 10)).containsExactly(c, b);
        assertThat(store.recent("dev-2", "granted", 10)).containsExactly(d);
        assertThat(store.recent("dev-2", "refused", 1)).containsExactly(c);
        assertThat(store.recent(" ", "", 10)).containsExactly(d, c, b, a);
        assertThat(store.recent("nobody", null, 10)).isEmpty();
    }

    @Test
    void concurrentAppendsFromEightThreadsLoseNothing() throws Exception {
        int threads = 8;
        int each = 100;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String agent = "agent-" + t;
                futures.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < each; i++) {
                        store.append(new AuditRecord(
                                T0.plusMillis(i),
                                agent,
                                "p",
                                "request_sandbox",
                                "granted",
                                "",
                                List.of("postgres"),
                                i));
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        List<AuditRecord> all = store.recent(null, null, threads * each + 100);
        assertThat(all).hasSize(threads * each);
        Set<String> distinct =
                all.stream().map(r -> r.agent() + "#" + r.durationMillis()).collect(Collectors.toSet());
        assertThat(distinct).hasSize(threads * each);
        assertThat(store.recent("agent-3", null, 1000)).hasSize(each);
    }

    // --- agents' MCP tokens ------------------------------------------------------------------

    private static AgentToken token(String agent, String digest, String engagement) {
        return new AgentToken(agent, digest, engagement, T0, T0.plusSeconds(3600));
    }

    @Test
    void tokenDigestFindsItsAgent() {
        store.saveToken(token("dev-1", "aa11", "e1"));
        store.saveToken(token("dev-2", "bb22", "e2"));
        assertThat(store.findToken("aa11")).hasValueSatisfying(t -> {
            assertThat(t.agent()).isEqualTo("dev-1");
            assertThat(t.engagement()).isEqualTo("e1");
            assertThat(t.expires()).isEqualTo(T0.plusSeconds(3600));
        });
        assertThat(store.findToken("bb22"))
                .hasValueSatisfying(t -> assertThat(t.agent()).isEqualTo("dev-2"));
        assertThat(store.findToken("cc33")).isEmpty();
    }

    @Test
    void mintingAgainReplacesTheOldToken() {
        store.saveToken(token("dev-1", "aa11", "e1"));
        store.saveToken(token("dev-1", "bb22", "e1"));
        assertThat(store.findToken("aa11")).isEmpty();
        assertThat(store.findToken("bb22")).isPresent();
    }

    @Test
    void tokenKeepsTheToolsetsItWasMintedFor() {
        store.saveToken(new AgentToken("dev-1", "aa11", "e1", T0, T0.plusSeconds(3600), List.of("core", "inspect")));
        store.saveToken(token("dev-2", "bb22", "e2"));
        assertThat(store.findToken("aa11"))
                .hasValueSatisfying(t -> assertThat(t.toolsets()).containsExactly("core", "inspect"));
        assertThat(store.findToken("bb22"))
                .hasValueSatisfying(t -> assertThat(t.toolsets())
                        .as("a token of the default toolsets")
                        .isEmpty());
    }

    @Test
    void revokedTokenFindsNoAgent() {
        store.saveToken(token("dev-1", "aa11", "e1"));
        assertThat(store.deleteToken("dev-1")).isTrue();
        assertThat(store.findToken("aa11")).isEmpty();
        assertThat(store.deleteToken("dev-1")).isFalse();
    }

    @Test
    void aNewEngagementEndsTheOldOnesTokens() {
        store.beginEngagement("dev-1", "e1", T0);
        store.saveToken(token("dev-1", "aa11", "e1"));
        store.beginEngagement("dev-1", "e2", T0.plusSeconds(1));
        assertThat(store.engagement("dev-1")).contains("e2");
        assertThat(store.findToken("aa11")).isEmpty();
    }

    @Test
    void endingAnEngagementEndsItsTokens() {
        store.beginEngagement("dev-1", "e1", T0);
        store.saveToken(token("dev-1", "aa11", "e1"));
        store.beginEngagement("dev-2", "e9", T0);
        assertThat(store.endEngagement("dev-1")).isTrue();
        assertThat(store.engagement("dev-1")).isEmpty();
        assertThat(store.findToken("aa11")).isEmpty();
        assertThat(store.endEngagement("dev-1")).isFalse();
        assertThat(store.engagement("dev-2")).contains("e9");
    }

    // --- client tokens --------------------------------------------------------------------------

    @Test
    void clientTokenDigestFindsItsOwner() {
        store.saveClientToken(new ClientToken("job:ci-1", "ab12", T0));
        store.saveClientToken(new ClientToken("job:ci-2", "cd34", T0.plusSeconds(1)));
        assertThat(store.findClientToken("ab12")).hasValueSatisfying(t -> {
            assertThat(t.owner()).isEqualTo("job:ci-1");
            assertThat(t.created()).isEqualTo(T0);
        });
        assertThat(store.findClientToken("cd34"))
                .hasValueSatisfying(t -> assertThat(t.owner()).isEqualTo("job:ci-2"));
        assertThat(store.findClientToken("ef56")).isEmpty();
        assertThat(store.clientTokens()).extracting(ClientToken::owner).containsExactly("job:ci-1", "job:ci-2");
    }

    @Test
    void mintingAClientTokenAgainReplacesTheOldOne() {
        store.saveClientToken(new ClientToken("job:ci-1", "ab12", T0));
        store.saveClientToken(new ClientToken("job:ci-1", "cd34", T0.plusSeconds(1)));
        assertThat(store.findClientToken("ab12")).isEmpty();
        assertThat(store.findClientToken("cd34")).isPresent();
        assertThat(store.clientTokens()).hasSize(1);
    }

    @Test
    void revokedClientTokenFindsNoOwner() {
        store.saveClientToken(new ClientToken("job:ci-1", "ab12", T0));
        store.saveClientToken(new ClientToken("job:ci-2", "cd34", T0));
        assertThat(store.deleteClientToken("job:ci-1")).isTrue();
        assertThat(store.findClientToken("ab12")).isEmpty();
        assertThat(store.deleteClientToken("job:ci-1")).isFalse();
        assertThat(store.findClientToken("cd34")).isPresent();
    }

    @Test
    void clientTokensAreNoAgentTokens() {
        store.saveClientToken(new ClientToken("job:ci-1", "ab12", T0));
        store.saveToken(token("dev-1", "cd34", "e1"));
        assertThat(store.findToken("ab12")).isEmpty();
        assertThat(store.findClientToken("cd34")).isEmpty();
        store.endEngagement("dev-1");
        assertThat(store.findClientToken("ab12")).isPresent();
    }

    // --- project lifecycle fields -------------------------------------------------------------

    @Test
    void projectLifecycleFieldsRoundTrip() {
        Project p = new Project(
                "ci",
                "CI",
                List.of("postgres"),
                Map.of(),
                Map.of("postgres", "17"),
                Duration.ofMinutes(30),
                Duration.ofHours(2),
                5);
        store.saveProject(p);
        assertThat(store.findProject("ci")).contains(p);
        store.saveProject(p.withLifecycle(null, null, null));
        assertThat(store.findProject("ci").orElseThrow().ttlDefault()).isNull();
        assertThat(store.findProject("ci").orElseThrow().maxLive()).isNull();
    }

    // --- sandbox records --------------------------------------------------------------------

    private static final Quota THREE = new Quota(3, 0);

    private static SandboxRecord draft(
            String id, String owner, String project, String name, Map<String, String> labels, Instant created) {
        return new SandboxRecord(
                id,
                owner,
                project,
                name,
                name.equals(SandboxRecord.DEFAULT_NAME) ? SandboxRecord.Kind.DEFAULT : SandboxRecord.Kind.NAMED,
                labels,
                List.of("postgres", "redis"),
                List.of(new ContainerRef("postgres", "c-" + id, "roboco-sbx-" + id, "img:1", List.of("pg_trgm"))),
                "inst-a",
                created,
                created.plusSeconds(3600),
                created.plusSeconds(86_400),
                null,
                null);
    }

    private static SandboxRecord draft(String id, String owner) {
        return draft(id, owner, "shop", "", Map.of(), T0);
    }

    @Test
    void reservedSandboxRoundTripsEveryField() {
        SandboxRecord r = draft("sbx_1", "dev-1", "shop", "before", Map.of("task", "T-7", "branch", "feat/x"), T0);
        assertThat(store.reserve(r, THREE)).isEqualTo(new Reservation.Reserved(r));
        assertThat(store.findSandbox("sbx_1")).contains(r);
        assertThat(store.findSandbox("sbx_nope")).isEmpty();
    }

    @Test
    void reservationOverTheOwnerQuotaInsertsNothingAndListsTheOwnersLiveSandboxes() {
        store.reserve(draft("sbx_1", "dev-1"), THREE);
        store.reserve(draft("sbx_2", "dev-1"), THREE);
        store.reserve(draft("sbx_3", "dev-1"), THREE);
        store.reserve(draft("sbx_x", "dev-2"), THREE);
        Reservation r = store.reserve(draft("sbx_4", "dev-1"), THREE);
        assertThat(r).isInstanceOf(Reservation.OverQuota.class);
        Reservation.OverQuota over = (Reservation.OverQuota) r;
        assertThat(over.scope()).isEqualTo("owner");
        assertThat(over.limit()).isEqualTo(3);
        assertThat(over.ownerLive()).extracting(SandboxRecord::id).containsExactly("sbx_1", "sbx_2", "sbx_3");
        assertThat(store.findSandbox("sbx_4")).isEmpty();
    }

    @Test
    void expiredAndDeletedSandboxesDoNotCountAgainstTheQuota() {
        store.reserve(
                draft("sbx_1", "dev-1", "shop", "", Map.of(), T0.minusSeconds(7200)), THREE); // expired at T0 - 3600
        store.reserve(draft("sbx_2", "dev-1"), THREE);
        store.reserve(draft("sbx_3", "dev-1"), THREE);
        assertThat(store.markDeleted("sbx_3", T0, "released", false)).isTrue();
        assertThat(store.reserve(draft("sbx_4", "dev-1"), THREE)).isInstanceOf(Reservation.Reserved.class);
        assertThat(store.reserve(draft("sbx_5", "dev-1"), THREE)).isInstanceOf(Reservation.Reserved.class);
        assertThat(store.reserve(draft("sbx_6", "dev-1"), THREE)).isInstanceOf(Reservation.OverQuota.class);
    }

    @Test
    void projectQuotaCountsEveryOwnersLiveSandboxes() {
        Quota q = new Quota(3, 2);
        store.reserve(draft("sbx_1", "dev-1"), q);
        store.reserve(draft("sbx_2", "dev-2"), q);
        Reservation r = store.reserve(draft("sbx_3", "dev-3"), q);
        assertThat(r).isInstanceOf(Reservation.OverQuota.class);
        assertThat(((Reservation.OverQuota) r).scope()).isEqualTo("project");
        assertThat(store.reserve(draft("sbx_4", "dev-3", "other", "", Map.of(), T0), q))
                .isInstanceOf(Reservation.Reserved.class);
    }

    @Test
    void aNamedSandboxNameIsTakenUntilItIsDeleted() {
        store.reserve(draft("sbx_1", "dev-1", "shop", "before", Map.of(), T0), THREE);
        Reservation r = store.reserve(draft("sbx_2", "dev-1", "shop", "before", Map.of(), T0), THREE);
        assertThat(r).isInstanceOf(Reservation.NameTaken.class);
        assertThat(((Reservation.NameTaken) r).existing().id()).isEqualTo("sbx_1");
        assertThat(store.reserve(draft("sbx_3", "dev-2", "shop", "before", Map.of(), T0), THREE))
                .isInstanceOf(Reservation.Reserved.class);
        store.markDeleted("sbx_1", T0, "deleted", false);
        assertThat(store.reserve(draft("sbx_4", "dev-1", "shop", "before", Map.of(), T0), THREE))
                .isInstanceOf(Reservation.Reserved.class);
    }

    @Test
    void sixtyFourConcurrentReservationsForOneOwnerAtQuotaThreeGiveExactlyThree() throws Exception {
        assertThat(reserveConcurrently(store, store, 64)).isEqualTo(3);
        assertThat(store.sandboxes(new SandboxQuery("dev-1", null, Map.of(), Set.of(SandboxState.LIVE), null, T0)))
                .hasSize(3);
    }

    @Test
    void twoStoresOnOneDatabaseTogetherGiveExactlyThree() throws Exception {
        try (SettingsStore second = openSecond()) {
            assertThat(reserveConcurrently(store, second, 64)).isEqualTo(3);
            assertThat(second.sandboxes(new SandboxQuery("dev-1", null, Map.of(), Set.of(SandboxState.LIVE), null, T0)))
                    .hasSize(3);
        }
    }

    /** {@code n} reservations for owner dev-1 released at once by a latch, alternating between the two stores. */
    private static int reserveConcurrently(SettingsStore a, SettingsStore b, int n) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Reservation>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                SettingsStore target = i % 2 == 0 ? a : b;
                SandboxRecord d = draft("sbx_c" + i, "dev-1");
                futures.add(pool.submit(() -> {
                    go.await();
                    return target.reserve(d, THREE);
                }));
            }
            go.countDown();
            int reserved = 0;
            for (Future<Reservation> f : futures) {
                Reservation r = f.get(120, TimeUnit.SECONDS);
                if (r instanceof Reservation.Reserved) {
                    reserved++;
                } else {
                    assertThat(((Reservation.OverQuota) r).ownerLive()).hasSizeLessThanOrEqualTo(3);
                }
            }
            return reserved;
        } finally {
            pool.shutdownNow();
        }
    }

    // --- sealed credentials -------------------------------------------------------------------

    private static SealedContainer sealedRow(String sandboxId, String containerId, String instance, String sealed) {
        return new SealedContainer(
                sandboxId,
                containerId,
                "dev-1",
                instance,
                "postgres",
                "roboco-sbx-dev-1-postgres-" + containerId,
                "img:1",
                "15",
                "127.0.0.1",
                40_123,
                List.of("pg_trgm", "vector"),
                Limits.sandboxDefaults(),
                true,
                T0,
                sealed);
    }

    @Test
    void sealedRowsRoundTripEveryFieldPerInstanceInWriteOrder() {
        SealedContainer a = sealedRow("sbx_1", "c1", "inst-a", "v1.k1.AAAA");
        SealedContainer b = sealedRow("sbx_1", "c2", "inst-a", "v1.k1.BBBB");
        SealedContainer other = sealedRow("sbx_9", "c9", "inst-b", "v1.k2.CCCC");
        SealedContainer pool = new SealedContainer(
                SealedContainer.POOL,
                "c3",
                "postgres@img:1",
                "inst-a",
                "postgres",
                "",
                "img:1",
                "",
                "127.0.0.1",
                40_124,
                List.of(),
                null,
                false,
                T0.plusSeconds(1),
                "v1.k1.DDDD");
        store.saveSealed(a);
        store.saveSealed(b);
        store.saveSealed(other);
        store.saveSealed(pool);

        assertThat(store.sealedOf("inst-a")).containsExactly(a, b, pool);
        assertThat(store.sealedOf("inst-b")).containsExactly(other);
        assertThat(store.sealedOf("inst-c")).isEmpty();
    }

    @Test
    void savingARowAgainReplacesItAndDeletingDropsOnlyThatContainer() {
        store.saveSealed(sealedRow("sbx_1", "c1", "inst-a", "v1.k1.AAAA"));
        store.saveSealed(sealedRow("sbx_1", "c2", "inst-a", "v1.k1.BBBB"));
        SealedContainer replaced = sealedRow("sbx_1", "c1", "inst-a", "v1.k1.EEEE");
        store.saveSealed(replaced);
        assertThat(store.sealedOf("inst-a"))
                .extracting(SealedContainer::sealed)
                .containsExactlyInAnyOrder("v1.k1.EEEE", "v1.k1.BBBB");

        assertThat(store.deleteSealed("sbx_1", "c2")).isTrue();
        assertThat(store.deleteSealed("sbx_1", "c2")).isFalse();
        assertThat(store.sealedOf("inst-a")).containsExactly(replaced);
    }

    @Test
    void resealReplacesOnlyTheValueItExpects() {
        store.saveSealed(sealedRow("sbx_1", "c1", "inst-a", "v1.k1.AAAA"));
        assertThat(store.resealIf("sbx_1", "c1", "v1.k1.OLD", "v1.k2.NEW")).isFalse();
        assertThat(store.resealIf("sbx_1", "c1", "v1.k1.AAAA", "v1.k2.NEW")).isTrue();
        assertThat(store.sealedOf("inst-a")).singleElement().satisfies(r -> {
            assertThat(r.sealed()).isEqualTo("v1.k2.NEW");
            assertThat(r.features()).containsExactly("pg_trgm", "vector");
        });
        assertThat(store.resealIf("sbx_nope", "c1", "v1.k2.NEW", "x")).isFalse();
    }

    @Test
    void closingOrForgettingASandboxDropsItsSealedRowsInTheSameStep() {
        store.reserve(draft("sbx_1", "dev-1"), THREE);
        store.reserve(draft("sbx_2", "dev-1"), THREE);
        store.saveSealed(sealedRow("sbx_1", "c1", "inst-a", "v1.k1.AAAA"));
        store.saveSealed(sealedRow("sbx_2", "c2", "inst-a", "v1.k1.BBBB"));
        store.saveSealed(sealedRow(SealedContainer.POOL, "c3", "inst-a", "v1.k1.CCCC"));

        store.markDeleted("sbx_1", T0, "released", false);
        assertThat(store.sealedOf("inst-a"))
                .extracting(SealedContainer::containerId)
                .containsExactly("c2", "c3");
        store.forgetSandbox("sbx_2");
        assertThat(store.sealedOf("inst-a"))
                .extracting(SealedContainer::containerId)
                .containsExactly("c3");
    }

    // --- schema snapshots ---------------------------------------------------------------------

    private static StoredSnapshot snapshot(String sandbox, String name, int seconds, String columnType) {
        SchemaDigest digest = SchemaDigest.of(
                "17.12 (Debian 17.12-0+deb13u1)",
                List.of("public"),
                List.of(
                        SchemaObject.of("table", "public.items", Map.of("kind", "table", "persistence", "permanent")),
                        SchemaObject.of("column", "public.items.id", Map.of("type", columnType, "nullable", "false")),
                        SchemaObject.of(
                                "function", "public.f(x integer)", Map.of("body", "md5:0a1b", "language", "sql"))));
        return new StoredSnapshot(sandbox, name, T0.plusSeconds(seconds), digest);
    }

    @Test
    void snapshotsRoundTripTheWholeDigestAndSavingANameAgainReplacesItInPlace() {
        StoredSnapshot before = snapshot("sbx_1", "before", 0, "integer");
        StoredSnapshot other = snapshot("sbx_2", "before", 1, "bigint");
        assertThat(store.saveSnapshot(before, 32)).isTrue();
        assertThat(store.saveSnapshot(snapshot("sbx_1", "after", 2, "bigint"), 32))
                .isTrue();
        assertThat(store.saveSnapshot(other, 32)).isTrue();

        assertThat(store.findSnapshot("sbx_1", "before")).contains(before);
        assertThat(store.findSnapshot("sbx_1", "before")
                        .orElseThrow()
                        .digest()
                        .objects()
                        .get("column public.items.id")
                        .attributes())
                .containsEntry("type", "integer");
        assertThat(store.findSnapshot("sbx_2", "before")).contains(other);
        assertThat(store.findSnapshot("sbx_1", "nope")).isEmpty();
        assertThat(store.snapshotNames("sbx_1")).containsExactly("before", "after");

        StoredSnapshot replaced = snapshot("sbx_1", "before", 3, "text");
        assertThat(store.saveSnapshot(replaced, 32)).isTrue();
        assertThat(store.findSnapshot("sbx_1", "before")).contains(replaced);
        assertThat(store.snapshotNames("sbx_1"))
                .as("a replaced name keeps its place")
                .containsExactly("before", "after");
    }

    @Test
    void aLargeSchemasSnapshotRoundTrips() {
        List<SchemaObject> objects = new ArrayList<>();
        for (int t = 0; t < 500; t++) {
            objects.add(
                    SchemaObject.of("table", "public.table_" + t, Map.of("kind", "table", "persistence", "permanent")));
            for (int c = 0; c < 10; c++) {
                objects.add(SchemaObject.of(
                        "column",
                        "public.table_" + t + ".column_with_a_long_name_" + c,
                        Map.of(
                                "type",
                                "character varying(255)",
                                "nullable",
                                "true",
                                "default",
                                "'a default value of some length'::text")));
            }
        }
        StoredSnapshot big =
                new StoredSnapshot("sbx_1", "big", T0, SchemaDigest.of("17.12", List.of("public"), objects));
        assertThat(store.saveSnapshot(big, 32)).isTrue();
        assertThat(store.findSnapshot("sbx_1", "big")).contains(big);
    }

    @Test
    void aSandboxHoldsAtMostMaxSnapshotsButMayStillReplaceOne() {
        assertThat(store.saveSnapshot(snapshot("sbx_1", "a", 0, "integer"), 2)).isTrue();
        assertThat(store.saveSnapshot(snapshot("sbx_1", "b", 1, "integer"), 2)).isTrue();
        assertThat(store.saveSnapshot(snapshot("sbx_1", "c", 2, "integer"), 2)).isFalse();
        assertThat(store.saveSnapshot(snapshot("sbx_1", "b", 3, "text"), 2)).isTrue();
        assertThat(store.saveSnapshot(snapshot("sbx_2", "c", 4, "integer"), 2))
                .as("the cap is per sandbox")
                .isTrue();
        assertThat(store.snapshotNames("sbx_1")).containsExactly("a", "b");
        assertThat(store.findSnapshot("sbx_1", "c")).isEmpty();
    }

    @Test
    void closingOrForgettingASandboxDropsItsSnapshotsInTheSameStep() {
        store.reserve(draft("sbx_1", "dev-1"), THREE);
        store.reserve(draft("sbx_2", "dev-1"), THREE);
        store.saveSnapshot(snapshot("sbx_1", "a", 0, "integer"), 32);
        store.saveSnapshot(snapshot("sbx_2", "a", 1, "integer"), 32);
        store.saveSnapshot(snapshot("agent:dev-9", "a", 2, "integer"), 32);

        store.markDeleted("sbx_1", T0, "released", false);
        assertThat(store.snapshotNames("sbx_1")).isEmpty();
        assertThat(store.findSnapshot("sbx_2", "a")).isPresent();
        store.forgetSandbox("sbx_2");
        assertThat(store.snapshotNames("sbx_2")).isEmpty();
        assertThat(store.deleteSnapshots("agent:dev-9"))
                .as("a set without a record drops them itself")
                .isEqualTo(1);
        assertThat(store.findSnapshot("agent:dev-9", "a")).isEmpty();
    }

    @Test
    void listFiltersByOwnerProjectLabelAndState() {
        store.reserve(draft("sbx_1", "dev-1", "shop", "a", Map.of("task", "T-1"), T0), THREE);
        store.reserve(draft("sbx_2", "dev-1", "geo", "b", Map.of("task", "T-2"), T0), THREE);
        store.reserve(draft("sbx_3", "dev-2", "shop", "c", Map.of("task", "T-1", "run", "9"), T0), THREE);
        store.reserve(draft("sbx_4", "dev-2", "shop", "d", Map.of(), T0.minusSeconds(7200)), THREE);
        store.reserve(draft("sbx_5", "dev-3", "shop", "e", Map.of(), T0), THREE);
        store.markDeleted("sbx_5", T0, "deleted", false);
        assertThat(ids(new SandboxQuery("dev-1", null, Map.of(), null, null, T0)))
                .containsExactly("sbx_1", "sbx_2");
        assertThat(ids(new SandboxQuery(null, "shop", Map.of(), Set.of(SandboxState.LIVE), null, T0)))
                .containsExactly("sbx_1", "sbx_3");
        assertThat(ids(new SandboxQuery(null, null, Map.of("task", "T-1"), null, null, T0)))
                .containsExactly("sbx_1", "sbx_3");
        assertThat(ids(new SandboxQuery(null, null, Map.of("task", "T-1", "run", "9"), null, null, T0)))
                .containsExactly("sbx_3");
        assertThat(ids(new SandboxQuery(null, null, Map.of(), Set.of(SandboxState.EXPIRED), null, T0)))
                .containsExactly("sbx_4");
        assertThat(ids(new SandboxQuery(null, null, Map.of(), Set.of(SandboxState.DELETED), null, T0)))
                .containsExactly("sbx_5");
        assertThat(ids(new SandboxQuery(null, null, Map.of(), null, "inst-a", T0)))
                .hasSize(5);
        assertThat(ids(new SandboxQuery(null, null, Map.of(), null, "inst-b", T0)))
                .isEmpty();
    }

    private List<String> ids(SandboxQuery q) {
        return store.sandboxes(q).stream().map(SandboxRecord::id).toList();
    }

    @Test
    void updateWritesTheMutableFieldsOfAnUndeletedRecordOnly() {
        SandboxRecord r = draft("sbx_1", "dev-1");
        store.reserve(r, THREE);
        SandboxRecord next = r.withExpires(T0.plusSeconds(7200))
                .withLabels(Map.of("run", "2"))
                .withContainers(
                        List.of("postgres", "redis"),
                        List.of(
                                new ContainerRef(
                                        "postgres",
                                        "c2",
                                        "n2",
                                        "img:2",
                                        List.of(),
                                        true,
                                        "17",
                                        "clone of $SHOP_DB_URL (at most 3 rows per table)"),
                                new ContainerRef("redis", "c3", "n3", "img:3", List.of())));
        assertThat(store.updateSandbox(next)).isTrue();
        assertThat(store.findSandbox("sbx_1")).contains(next);
        store.markDeleted("sbx_1", T0, "deleted", false);
        assertThat(store.updateSandbox(r)).isFalse();
        assertThat(store.findSandbox("sbx_1").orElseThrow().deletedReason()).isEqualTo("deleted");
        assertThat(store.updateSandbox(draft("sbx_nope", "dev-1"))).isFalse();
    }

    @Test
    void markDeletedOnlyIfExpiredLosesToARenewal() {
        store.reserve(draft("sbx_1", "dev-1"), THREE); // expires T0 + 1h
        assertThat(store.markDeleted("sbx_1", T0.plusSeconds(60), "expired", true))
                .isFalse();
        assertThat(store.markDeleted("sbx_1", T0.plusSeconds(3600), "expired", true))
                .isTrue();
        assertThat(store.markDeleted("sbx_1", T0.plusSeconds(3601), "expired", true))
                .isFalse();
        SandboxRecord found = store.findSandbox("sbx_1").orElseThrow();
        assertThat(found.deleted()).isEqualTo(T0.plusSeconds(3600));
        assertThat(found.state(T0)).isEqualTo(SandboxState.DELETED);
    }

    @Test
    void forgottenAndPrunedRecordsAreGone() {
        store.reserve(draft("sbx_1", "dev-1"), THREE);
        store.reserve(draft("sbx_2", "dev-1"), THREE);
        store.reserve(draft("sbx_3", "dev-1"), THREE);
        store.forgetSandbox("sbx_1");
        store.markDeleted("sbx_2", T0, "released", false);
        store.markDeleted("sbx_3", T0.plusSeconds(100), "released", false);
        assertThat(store.findSandbox("sbx_1")).isEmpty();
        assertThat(store.pruneSandboxes(T0.plusSeconds(50), 10)).isEqualTo(1);
        assertThat(store.findSandbox("sbx_2")).isEmpty();
        assertThat(store.findSandbox("sbx_3")).isPresent();
    }

    @Test
    void heartbeatsAreKeptPerInstance() {
        store.heartbeat("inst-a", T0);
        store.heartbeat("inst-b", T0.plusSeconds(1));
        store.heartbeat("inst-a", T0.plusSeconds(5));
        assertThat(store.heartbeats()).isEqualTo(Map.of("inst-a", T0.plusSeconds(5), "inst-b", T0.plusSeconds(1)));
    }

    // --- audit pages and retention -----------------------------------------------------------

    @Test
    void pagingThroughTenThousandRecordsWithTheCursorReturnsEachExactlyOnce() {
        int n = 10_000;
        for (int i = 0; i < n; i++) {
            // Ten records share each millisecond, so the order inside a tie is exercised on every page boundary.
            store.append(new AuditRecord(
                    T0.plusMillis(i / 10), "dev-" + (i % 7), "shop", "request_sandbox", "granted", "", List.of(), i));
        }
        Set<Long> seen = new HashSet<>();
        List<Long> order = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            AuditPage page = store.page(new AuditQuery(null, null, 777, cursor));
            page.records().forEach(r -> {
                assertThat(seen.add(r.durationMillis()))
                        .as("record %d returned twice", r.durationMillis())
                        .isTrue();
                order.add(r.durationMillis());
            });
            cursor = page.nextCursor();
            pages++;
        } while (cursor != null && pages < 100);
        assertThat(seen).hasSize(n);
        assertThat(pages).isEqualTo((n + 776) / 777);
        assertThat(order.get(0)).isEqualTo(n - 1L);
        assertThat(order.get(n - 1)).isEqualTo(0L);
    }

    @Test
    void pagesFilterAndEndWithoutACursor() {
        for (int i = 0; i < 5; i++) {
            store.append(record(i, i % 2 == 0 ? "dev-1" : "dev-2", "granted", List.of()));
        }
        AuditPage first = store.page(new AuditQuery("dev-1", null, 2, null));
        assertThat(first.records()).extracting(AuditRecord::durationMillis).containsExactly(44L, 42L);
        AuditPage second = store.page(new AuditQuery("dev-1", null, 2, first.nextCursor()));
        assertThat(second.records()).extracting(AuditRecord::durationMillis).containsExactly(40L);
        assertThat(second.nextCursor()).isNull();
        assertThatThrownBy(() -> store.page(new AuditQuery(null, null, 2, "not-a-cursor")))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("cursor");
    }

    @Test
    void pruneRemovesOnlyOlderRecordsAtMostOneBatchAtATime() {
        for (int i = 0; i < 10; i++) {
            store.append(record(i, "dev-1", "granted", List.of()));
        }
        Instant cut = T0.plusSeconds(6); // records 0..5 are older
        assertThat(store.pruneAudit(cut, 4)).isEqualTo(4);
        assertThat(store.pruneAudit(cut, 4)).isEqualTo(2);
        assertThat(store.pruneAudit(cut, 4)).isZero();
        assertThat(store.recent(null, null, 100))
                .extracting(AuditRecord::durationMillis)
                .containsExactly(49L, 48L, 47L, 46L);
    }

    // --- persistence ------------------------------------------------------------------------

    @Test
    void dataSurvivesCloseAndReopen() throws Exception {
        Project p = new Project("shop", "Shop", List.of("postgres"), Map.of("postgres", List.of("citext")));
        Agent a = new Agent("dev-1", "developer", "shop", "T-1");
        AuditRecord r = record(1, "dev-1", "granted", List.of("postgres"));
        store.saveProject(p);
        store.storeFlag(FlagStore.SANDBOX_DB_ENABLED, true);
        store.saveAgent(a);
        store.append(r);
        store.beginEngagement("dev-1", "e1", T0);
        store.saveToken(token("dev-1", "aa11", "e1"));
        store.saveClientToken(new ClientToken("job:ci-1", "ab12", T0));
        StoredSnapshot snapshot = snapshot("sbx_1", "before", 0, "integer");
        store.saveSnapshot(snapshot, 32);
        store.close();
        store = null;

        store = reopen();

        assertThat(store.findProject("shop")).contains(p);
        assertThat(store.storedFlag(FlagStore.SANDBOX_DB_ENABLED)).contains(true);
        assertThat(store.findAgent("dev-1")).contains(a);
        assertThat(store.recent(null, null, 10)).containsExactly(r);
        assertThat(store.findToken("aa11"))
                .hasValueSatisfying(t -> assertThat(t.agent()).isEqualTo("dev-1"));
        assertThat(store.engagement("dev-1")).contains("e1");
        assertThat(store.findClientToken("ab12")).contains(new ClientToken("job:ci-1", "ab12", T0));
        assertThat(store.findSnapshot("sbx_1", "before")).contains(snapshot);
        store.append(record(2, "dev-1", "released", List.of("postgres")));
        assertThat(store.recent(null, null, 10)).hasSize(2);
    }

    private static AuditRecord record(int second, String agent, String decision, List<String> services) {
        return new AuditRecord(
                T0.plus(second, ChronoUnit.SECONDS),
                agent,
                "shop",
                "request_sandbox",
                decision,
                decision.equals("refused") ? "feature flag off" : "",
                services,
                40L + second);
    }
}
