package io.roboco.sandbox.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.settings.AuditQuery;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.store.TestPostgres;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Audit retention and cursor paging on a real server (embedded store, real Docker), and the figures the notes
 * quote: the store's size per 100,000 records and how long pruning them takes, embedded H2 and PostgreSQL.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class AuditRetentionIT {
    @TempDir
    Path dir;

    @Test
    void withAFiveSecondRetentionOlderRecordsAreGoneAfterTheNextTickAndNewerOnesStay() throws Exception {
        MutableClock clock = MutableClock.atNow();
        Path state = dir.resolve("state");
        try (LifecycleServer s = new LifecycleServer(
                state, Map.of("ROBOCO_SANDBOX_AUDIT_RETENTION", "5s"), JdbcSettingsStore.embedded(state), clock)) {
            Instant now = clock.instant();
            for (int i = 0; i < 20; i++) {
                s.store.append(new AuditRecord(
                        now.minusSeconds(60).plusMillis(i),
                        "ret-1",
                        "shop",
                        "request_sandbox",
                        "granted",
                        "old",
                        List.of(),
                        i));
            }
            for (int i = 0; i < 5; i++) {
                s.store.append(new AuditRecord(
                        now.minusSeconds(2).plusMillis(i),
                        "ret-1",
                        "shop",
                        "request_sandbox",
                        "granted",
                        "new",
                        List.of(),
                        100 + i));
            }
            s.server.tickNow();
            List<AuditRecord> left =
                    s.store.page(new AuditQuery("ret-1", null, 1000, null)).records();
            assertThat(left).hasSize(5).allSatisfy(r -> assertThat(r.reason()).isEqualTo("new"));
            clock.advance(Duration.ofSeconds(4)); // the newer ones are now 6 s old
            s.server.tickNow();
            assertThat(s.store.page(new AuditQuery("ret-1", null, 1000, null)).records())
                    .isEmpty();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void pagingThroughTenThousandRecordsOfTheApiWithTheCursorReturnsEachExactlyOnce() throws Exception {
        Path state = dir.resolve("state");
        try (LifecycleServer s =
                new LifecycleServer(state, Map.of(), JdbcSettingsStore.embedded(state), Clock.systemUTC())) {
            Instant t0 = Instant.now().minusSeconds(3600);
            for (int i = 0; i < 10_000; i++) {
                s.store.append(new AuditRecord(
                        t0.plusMillis(i / 4), "page-1", "shop", "request_sandbox", "granted", "", List.of(), i));
            }
            Set<Long> seen = new HashSet<>();
            String cursor = null;
            int pages = 0;
            do {
                ApiClient.Reply r = s.api.admin(
                        "GET",
                        "/api/audit?agent=page-1&limit=1000" + (cursor == null ? "" : "&cursor=" + cursor),
                        null);
                assertThat(r.status()).as(r.toString()).isEqualTo(200);
                for (Object o : (List<Object>) r.json().get("records")) {
                    long n = ((Number) ((Map<String, Object>) o).get("duration_ms")).longValue();
                    assertThat(seen.add(n)).as("record %d twice", n).isTrue();
                }
                cursor = (String) r.json().get("next_cursor");
                pages++;
                // Appends meanwhile land before the cursor and never shift a page.
                s.store.append(new AuditRecord(
                        Instant.now(), "page-1", "shop", "request_sandbox", "granted", "late", List.of(), -pages));
            } while (cursor != null && pages < 50);
            assertThat(seen).hasSize(10_000);
            assertThat(pages).isEqualTo(10);
        }
    }

    @Test
    void figuresStoreSizeAndPruneTimePerHundredThousandRecords() throws Exception {
        int n = 100_000;
        Path state = dir.resolve("h2");
        try (JdbcSettingsStore store = JdbcSettingsStore.embedded(state)) {
            String url = "jdbc:h2:file:" + state.toAbsolutePath().resolve(JdbcSettingsStore.EMBEDDED_NAME)
                    + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE";
            try (Connection c = DriverManager.getConnection(url, "sa", "")) {
                fill(c, n);
                try (Statement st = c.createStatement()) {
                    st.execute("CHECKPOINT SYNC");
                }
            }
            long bytes = Files.size(state.resolve(JdbcSettingsStore.EMBEDDED_NAME + ".mv.db"));
            // H2's MVStore appends chunks and compacts in the background; SHUTDOWN COMPACT shows the live size.
            try (Connection c = DriverManager.getConnection(url, "sa", "");
                    Statement st = c.createStatement()) {
                st.execute("SHUTDOWN COMPACT");
            }
            long compacted = Files.size(state.resolve(JdbcSettingsStore.EMBEDDED_NAME + ".mv.db"));
            // The shutdown broke the store's connections: the first write finds the writer broken, fails and drops
            // it (with the idle readers); the next opens new ones. One call fails, not more.
            int failed = 0;
            for (int attempt = 0; attempt < 2; attempt++) {
                try {
                    store.pruneAudit(Instant.EPOCH, 1);
                    break;
                } catch (RuntimeException expected) {
                    failed++;
                }
            }
            assertThat(failed).as("calls failed after the shutdown").isLessThanOrEqualTo(1);
            double seconds = prune(store, n);
            System.out.printf(
                    "[figure] audit H2 embedded: %d records -> database file %.1f MB before compaction, %.1f MB compacted"
                            + " (%.0f bytes/record); pruned in %.2f s (batches of 1000)%n",
                    n, bytes / 1e6, compacted / 1e6, compacted / (double) n, seconds);
        }
        try (TestPostgres pg = TestPostgres.start()) {
            String url = pg.newDatabase();
            try (JdbcSettingsStore store = JdbcSettingsStore.open(url, TestPostgres.USER, pg.password)) {
                Properties p = new Properties();
                p.setProperty("user", TestPostgres.USER);
                p.setProperty("password", pg.password);
                long bytes;
                try (Connection c = DriverManager.getConnection(url, p)) {
                    fill(c, n);
                    try (Statement st = c.createStatement();
                            ResultSet rs = st.executeQuery("SELECT pg_total_relation_size('audit')")) {
                        rs.next();
                        bytes = rs.getLong(1);
                    }
                }
                double seconds = prune(store, n);
                System.out.printf(
                        "[figure] audit PostgreSQL 15: %d records -> table + indexes %.1f MB (%.0f bytes/record); pruned in %.2f s"
                                + " (batches of 1000)%n",
                        n, bytes / 1e6, bytes / (double) n, seconds);
            }
        }
    }

    /** {@code n} typical records (a cache hit's reason, two services), 30 days old, in batches. */
    private static void fill(Connection c, int n) throws Exception {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        OffsetDateTime old = OffsetDateTime.now(ZoneOffset.UTC).minusDays(31);
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO audit (ts, agent, project, verb, decision, reason, services, duration_ms)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < n; i++) {
                ps.setObject(1, old.plusNanos(i * 1000L));
                ps.setString(2, "dev-" + (i % 100));
                ps.setString(3, "shop");
                ps.setString(4, "request_sandbox");
                ps.setString(5, "granted");
                ps.setString(6, "cache hit, sandbox sbx_5f0c1a2b3c4d5e6f7a8b");
                ps.setString(7, "[\"postgres\",\"redis\"]");
                ps.setLong(8, 4);
                ps.addBatch();
                if (i % 5000 == 4999) {
                    ps.executeBatch();
                    c.commit();
                }
            }
            ps.executeBatch();
            c.commit();
        } finally {
            c.setAutoCommit(auto);
        }
    }

    /** Prunes as the janitor does (bounded batches) until nothing older than 30 days is left; seconds taken. */
    private static double prune(SettingsStore store, int expected) {
        Instant cut = Instant.now().minus(Duration.ofDays(30));
        long t0 = System.nanoTime();
        int total = 0;
        int n;
        do {
            n = store.pruneAudit(cut, 1000);
            total += n;
        } while (n == 1000);
        assertThat(total).isEqualTo(expected);
        return (System.nanoTime() - t0) / 1e9;
    }
}
