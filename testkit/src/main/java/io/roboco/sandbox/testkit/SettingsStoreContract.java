package io.roboco.sandbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.FlagStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.SettingsStore;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
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
        Project p = new Project("shop", "Shop", List.of("postgres", "redis"), Map.of("postgres", List.of("pg_trgm")), Map.of("postgres", "17"));
        store.saveProject(p);
        assertThat(store.findProject("shop")).contains(p);
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
        Map<String, List<String>> ext = Map.of("postgres", List.of("vector", "pg_trgm", "uuid-ossp"),
                "redis", List.of("search"), "mongo", List.of());
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
                        store.append(new AuditRecord(T0.plusMillis(i), agent, "p", "request_sandbox",
                                "granted", "", List.of("postgres"), i));
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
        Set<String> distinct = all.stream().map(r -> r.agent() + "#" + r.durationMillis()).collect(Collectors.toSet());
        assertThat(distinct).hasSize(threads * each);
        assertThat(store.recent("agent-3", null, 1000)).hasSize(each);
    }

    // --- agents' MCP tokens ------------------------------------------------------------------

    @Test
    void tokenDigestFindsItsAgent() {
        store.saveToken("dev-1", "aa11", T0);
        store.saveToken("dev-2", "bb22", T0);
        assertThat(store.agentForToken("aa11")).contains("dev-1");
        assertThat(store.agentForToken("bb22")).contains("dev-2");
        assertThat(store.agentForToken("cc33")).isEmpty();
    }

    @Test
    void mintingAgainReplacesTheOldToken() {
        store.saveToken("dev-1", "aa11", T0);
        store.saveToken("dev-1", "bb22", T0.plusSeconds(1));
        assertThat(store.agentForToken("aa11")).isEmpty();
        assertThat(store.agentForToken("bb22")).contains("dev-1");
    }

    @Test
    void revokedTokenFindsNoAgent() {
        store.saveToken("dev-1", "aa11", T0);
        assertThat(store.deleteToken("dev-1")).isTrue();
        assertThat(store.agentForToken("aa11")).isEmpty();
        assertThat(store.deleteToken("dev-1")).isFalse();
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
        store.saveToken("dev-1", "aa11", T0);
        store.close();
        store = null;

        store = reopen();

        assertThat(store.findProject("shop")).contains(p);
        assertThat(store.storedFlag(FlagStore.SANDBOX_DB_ENABLED)).contains(true);
        assertThat(store.findAgent("dev-1")).contains(a);
        assertThat(store.recent(null, null, 10)).containsExactly(r);
        assertThat(store.agentForToken("aa11")).contains("dev-1");
        store.append(record(2, "dev-1", "released", List.of("postgres")));
        assertThat(store.recent(null, null, 10)).hasSize(2);
    }

    private static AuditRecord record(int second, String agent, String decision, List<String> services) {
        return new AuditRecord(T0.plus(second, ChronoUnit.SECONDS), agent, "shop", "request_sandbox", decision,
                decision.equals("refused") ? "feature flag off" : "", services, 40L + second);
    }
}
