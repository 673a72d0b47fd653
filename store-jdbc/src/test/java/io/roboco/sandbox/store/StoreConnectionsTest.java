package io.roboco.sandbox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.settings.SettingsStoreException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store's writer (group commit) and readers, on an embedded H2 database; batches parked by latches, no sleeps. */
class StoreConnectionsTest {
    @TempDir
    Path dir;

    private StoreConnections db;
    private ExecutorService threads;

    @BeforeEach
    void open() {
        db = new StoreConnections(
                DatabaseUrl.parse("jdbc:h2:file:" + dir.resolve("t") + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE"),
                "sa",
                "");
        db.transaction("create the table", c -> {
            c.createStatement().execute("CREATE TABLE t (k VARCHAR(20) PRIMARY KEY, v INT)");
            return null;
        });
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        db.close();
    }

    @Test
    void writesThatArriveWhileOneIsUnderWayShareOneCommitAndEachReturnsOnlyOnceCommitted() throws Exception {
        CountDownLatch parked = new CountDownLatch(1);
        CountDownLatch open = new CountDownLatch(1);
        db.holdNextBatch(parked, open);
        long before = db.commits();
        Future<Integer> first = threads.submit(() -> insert("first", 0));
        assertThat(parked.await(10, TimeUnit.SECONDS))
                .as("the first write holds the writer")
                .isTrue();
        List<Future<Integer>> later = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String key = "later-" + i;
            int value = i;
            later.add(threads.submit(() -> insert(key, value)));
        }
        awaitWaiting(10);
        assertThat(later).noneMatch(Future::isDone);
        assertThat(first.isDone()).isFalse();

        open.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        for (Future<Integer> f : later) {
            assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        }
        assertThat(db.commits() - before).as("eleven writes, one commit").isEqualTo(1);
        assertThat(count()).isEqualTo(11);
    }

    @Test
    void aWriteThatFailsInABatchIsRolledBackAloneAndTheOthersAreCommitted() throws Exception {
        CountDownLatch parked = new CountDownLatch(1);
        CountDownLatch open = new CountDownLatch(1);
        db.holdNextBatch(parked, open);
        Future<Integer> first = threads.submit(() -> insert("a", 1));
        assertThat(parked.await(10, TimeUnit.SECONDS)).isTrue();
        Future<Integer> duplicate = threads.submit(() -> db.transaction("insert twice", c -> {
            insertOn(c, "b", 2);
            insertOn(c, "a", 3); // primary key taken by the first write, in the same transaction
            return 1;
        }));
        Future<Integer> third = threads.submit(() -> insert("c", 4));
        awaitWaiting(2);

        open.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(third.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThatThrownBy(() -> duplicate.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(SettingsStoreException.class)
                .hasMessageContaining("could not insert twice");
        assertThat(keys()).containsExactly("a", "c"); // nothing of the failed write, not even its first row
        assertThat(value("a")).isEqualTo(1);
    }

    @Test
    void aReadDoesNotWaitForTheWriterAndSeesWhatWasCommitted() throws Exception {
        insert("seen", 7);
        CountDownLatch parked = new CountDownLatch(1);
        CountDownLatch open = new CountDownLatch(1);
        db.holdNextBatch(parked, open);
        Future<Integer> held = threads.submit(() -> insert("held", 8));
        assertThat(parked.await(10, TimeUnit.SECONDS)).isTrue();
        try {
            Future<Integer> read = threads.submit(() -> value("seen"));
            assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(7);
            assertThat(held.isDone()).as("the write is still parked").isFalse();
            assertThat(threads.submit(() -> value("held")).get(10, TimeUnit.SECONDS))
                    .as("uncommitted")
                    .isNull();
        } finally {
            open.countDown();
        }
        assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(value("held")).as("committed before the write returned").isEqualTo(8);
    }

    @Test
    void afterTheDatabaseWasShutOneCallFailsAndThenReadsAndWritesReconnect() throws Exception {
        insert("before", 1);
        assertThat(value("before")).isEqualTo(1); // a reader connection is open and idle now
        try (Connection other = DriverManager.getConnection(
                        "jdbc:h2:file:" + dir.resolve("t") + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE", "sa", "");
                Statement st = other.createStatement()) {
            st.execute("SHUTDOWN");
        }
        assertThatThrownBy(() -> value("before"))
                .as("the call that finds the connections broken fails")
                .isInstanceOf(SettingsStoreException.class);
        assertThat(insert("after", 2)).as("the writer was checked and reopened").isEqualTo(1);
        assertThat(value("before")).isEqualTo(1);
        assertThat(value("after")).isEqualTo(2);
    }

    @Test
    void aClosedStoreRefusesReadsAndWrites() {
        db.close();
        assertThatThrownBy(() -> insert("x", 1)).hasMessageContaining("is closed");
        assertThatThrownBy(() -> value("x")).hasMessageContaining("is closed");
    }

    private void awaitWaiting(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (db.waitingWrites() < n) {
            assertThat(System.nanoTime()).as(n + " writes wait for the writer").isLessThan(deadline);
            Thread.sleep(2);
        }
    }

    private int insert(String key, int value) {
        return db.transaction("insert " + key, c -> insertOn(c, key, value));
    }

    private static int insertOn(Connection c, String key, int value) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("INSERT INTO t (k, v) VALUES (?, ?)")) {
            p.setString(1, key);
            p.setInt(2, value);
            return p.executeUpdate();
        }
    }

    private Integer value(String key) {
        return db.read("read " + key, c -> {
            try (PreparedStatement p = c.prepareStatement("SELECT v FROM t WHERE k = ?")) {
                p.setString(1, key);
                try (ResultSet rs = p.executeQuery()) {
                    return rs.next() ? rs.getInt(1) : null;
                }
            }
        });
    }

    private int count() {
        return db.read("count", c -> {
            try (ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM t")) {
                rs.next();
                return rs.getInt(1);
            }
        });
    }

    private List<String> keys() {
        return db.read("keys", c -> {
            List<String> keys = new ArrayList<>();
            try (ResultSet rs = c.createStatement().executeQuery("SELECT k FROM t ORDER BY k")) {
                while (rs.next()) {
                    keys.add(rs.getString(1));
                }
            }
            return keys;
        });
    }
}
