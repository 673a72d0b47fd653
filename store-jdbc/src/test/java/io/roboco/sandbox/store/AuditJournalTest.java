package io.roboco.sandbox.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.settings.AuditRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit journal in front of the embedded database: durable on append, read after draining, replayed once. */
class AuditJournalTest {
    @TempDir
    Path stateDir;

    private static AuditRecord record(String agent, Instant time) {
        return new AuditRecord(time, agent, "shop", "request_sandbox", "granted", "", List.of("postgres"), 3);
    }

    @Test
    void aRecordIsInTheJournalWhenAppendReturnsAndInTheDatabaseForTheNextRead() throws Exception {
        Instant t = Instant.parse("2026-12-04T10:00:00.123456789Z");
        try (JdbcSettingsStore store = JdbcSettingsStore.embedded(stateDir)) {
            store.append(record("a1", t));
            assertThat(store.recent("a1", null, 10))
                    .extracting(AuditRecord::agent)
                    .containsExactly("a1");
        }
        // Closing moved everything and emptied the file.
        assertThat(Files.size(stateDir.resolve(JdbcSettingsStore.AUDIT_JOURNAL)))
                .isZero();
    }

    @Test
    void whatAKilledServerLeftInTheJournalIsReplayedOnceAndATornLastLineIsSkipped() throws Exception {
        Instant t0 = Instant.parse("2026-12-04T10:00:00Z");
        AuditRecord committed = record("a1", t0);
        try (JdbcSettingsStore store = JdbcSettingsStore.embedded(stateDir)) {
            store.append(committed);
            store.recent(null, null, 1); // drained: in the database
        }
        // As a server killed between a batch's commit and the file being emptied, then after two more answers and
        // inside a third write, leaves it: the committed line, two whole lines, a torn one.
        Path journal = stateDir.resolve(JdbcSettingsStore.AUDIT_JOURNAL);
        String line1 = "{\"time\":\"" + t0 + "\",\"agent\":\"a1\",\"project\":\"shop\",\"verb\":\"request_sandbox\","
                + "\"decision\":\"granted\",\"reason\":\"\",\"services\":[\"postgres\"],\"ms\":3}\n";
        String line2 = line1.replace("a1", "a2")
                .replace(t0.toString(), t0.plusMillis(1).toString());
        String line3 = line1.replace("a1", "a3")
                .replace(t0.toString(), t0.plusMillis(2).toString());
        Files.writeString(
                journal,
                line1 + line2 + line3 + "{\"time\":\"2026-12-04T10:00:00.003Z\",\"agent\":\"a4\",\"proj",
                StandardCharsets.UTF_8,
                StandardOpenOption.TRUNCATE_EXISTING);

        try (JdbcSettingsStore store = JdbcSettingsStore.embedded(stateDir)) {
            assertThat(store.recent(null, null, 10))
                    .extracting(AuditRecord::agent)
                    .containsExactly("a3", "a2", "a1");
            assertThat(Files.size(journal)).isZero();
        }
        try (JdbcSettingsStore store = JdbcSettingsStore.embedded(stateDir)) { // and not again
            assertThat(store.recent(null, null, 10)).hasSize(3);
        }
    }

    @Test
    void anInterruptedWriterNeitherLosesItsRecordNorClosesTheJournalForOthers() throws Exception {
        Instant t0 = Instant.parse("2026-12-07T20:03:57Z");
        try (JdbcSettingsStore store = JdbcSettingsStore.embedded(stateDir)) {
            // As the janitor, interrupted by the shutdown while it audits its sweep.
            Thread interrupted = new Thread(() -> {
                Thread.currentThread().interrupt();
                store.append(record("janitor", t0));
            });
            interrupted.start();
            interrupted.join(TimeUnit.SECONDS.toMillis(30));
            store.append(record("released", t0.plusMillis(1))); // the shutdown's release record, on another thread
            assertThat(store.recent(null, null, 10))
                    .extracting(AuditRecord::agent)
                    .containsExactly("released", "janitor");
        }
    }

    @Test
    void everyRecordOfConcurrentAppendsReachesTheDatabase() throws Exception {
        int threads = 4;
        int each = 50;
        Instant t0 = Instant.parse("2026-12-04T10:00:00Z");
        List<String> written = Collections.synchronizedList(new ArrayList<>());
        try (JdbcSettingsStore store = JdbcSettingsStore.embedded(stateDir)) {
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> all = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int n = i;
                Thread th = new Thread(() -> {
                    try {
                        go.await();
                        for (int k = 0; k < each; k++) {
                            String agent = "t" + n + "-" + k;
                            store.append(record(agent, t0.plusSeconds(n * each + k)));
                            written.add(agent);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                th.start();
                all.add(th);
            }
            go.countDown();
            for (Thread th : all) {
                th.join(TimeUnit.SECONDS.toMillis(60));
            }
            assertThat(written).hasSize(threads * each);
            assertThat(store.recent(null, null, 1000))
                    .extracting(AuditRecord::agent)
                    .containsExactlyInAnyOrderElementsOf(written);
        }
    }

    /** A sink that records each batch it is given, and tells when one arrives. */
    private static final class Batches implements AuditJournal.Sink {
        final List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch first = new CountDownLatch(1);

        @Override
        public void write(List<AuditRecord> batch) {
            batches.add(batch.stream().map(AuditRecord::agent).toList());
            first.countDown();
        }
    }

    @Test
    void theMoveToTheDatabaseWaitsForAQuietMomentAndAReadDoesNotWaitForIt() throws Exception {
        Batches sink = new Batches();
        Instant t0 = Instant.parse("2026-12-07T22:00:00Z");
        // A quiet moment that never comes within the test: only the read moves the records.
        try (AuditJournal journal = AuditJournal.open(
                stateDir.resolve("audit.journal"), sink, n -> List.of(), Duration.ofHours(1), Duration.ofHours(1))) {
            for (int i = 0; i < 16; i++) {
                journal.append(List.of(record("burst-" + i, t0.plusMillis(i))));
            }
            assertThat(Files.readAllLines(stateDir.resolve("audit.journal"))).hasSize(16); // durable before any move
            assertThat(sink.batches).isEmpty();

            journal.drain();

            assertThat(sink.batches).hasSize(1); // the burst's records in one transaction
            assertThat(sink.batches.get(0)).hasSize(16).startsWith("burst-0").endsWith("burst-15");
            assertThat(Files.size(stateDir.resolve("audit.journal"))).isZero();
        }
    }

    @Test
    void recordsReachTheDatabaseWithoutAReadOnceTheOldestHasWaitedTheLongestLag() throws Exception {
        Batches sink = new Batches();
        // Appends that never stop being recent (quiet: an hour): the lag bound alone moves them.
        try (AuditJournal journal = AuditJournal.open(
                stateDir.resolve("audit.journal"), sink, n -> List.of(), Duration.ofHours(1), Duration.ofMillis(20))) {
            journal.append(List.of(record("a1", Instant.parse("2026-12-07T22:00:00Z"))));

            assertThat(sink.first.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(sink.batches.get(0)).containsExactly("a1");
        }
    }

    @Test
    void closingMovesWhatIsWaitingAtOnce() throws Exception {
        Batches sink = new Batches();
        AuditJournal journal = AuditJournal.open(
                stateDir.resolve("audit.journal"), sink, n -> List.of(), Duration.ofHours(1), Duration.ofHours(1));
        journal.append(List.of(record("a1", Instant.parse("2026-12-07T22:00:00Z"))));

        journal.close();

        assertThat(sink.batches).containsExactly(List.of("a1"));
    }
}
