package io.roboco.sandbox.store;

import io.roboco.sandbox.settings.SettingsStoreException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The settings store's connections: one <b>writer</b> that runs every write transaction one after another, so
 * read-then-write work (an upsert, a reservation's quota count and insert) is race-free on every database, and a few
 * <b>readers</b> for single reads, which need no lock: each sees what the writer has committed (every write is
 * committed before its caller returns).
 *
 * <p><b>Group commit.</b> Writes that arrive while the writer is busy wait for it, and the next of them to get the
 * writer runs all that are waiting, in arrival order, in one transaction (each behind a savepoint, so one that fails
 * is rolled back alone) and commits once; each caller returns only after that commit, so a write is durable before its
 * caller goes on, exactly as with one transaction each. Concurrent requests (a burst of pool claims: reservation,
 * settlement, sealed credential, audit record each) then share commits and lock hand-overs instead of queueing one
 * of each, which on a saturated host cost more than the statements (issue 21). A connection that breaks is dropped
 * and reopened by the next call.
 */
final class StoreConnections implements AutoCloseable {
    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** Reader connections at most; a read that finds none free runs on the writer, as every read once did. */
    static final int READERS = 4;

    /** Writes one commit covers at most. */
    static final int MAX_BATCH = 100;

    private final DatabaseUrl url;
    private final String user;
    private final String password;
    private final ReentrantLock writer = new ReentrantLock();
    private final ArrayDeque<Pending<?>> waiting = new ArrayDeque<>(); // guarded by itself
    private final Semaphore readerPermits = new Semaphore(READERS);
    private final ConcurrentLinkedDeque<Connection> idleReaders = new ConcurrentLinkedDeque<>();
    private Connection connection; // the writer's; guarded by writer
    private volatile boolean closed;
    /** Set when a connection was found broken (the database restarted or shut): the writer is checked before use. */
    private volatile boolean checkWriter;

    private final AtomicLong commits = new AtomicLong();
    private volatile CountDownLatch[] batchGate; // tests: {parked, open}: parks the next batch before it runs

    StoreConnections(DatabaseUrl url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    String where() {
        return url.redacted();
    }

    DatabaseUrl.Kind kind() {
        return url.kind();
    }

    /**
     * Runs {@code work} in a write transaction: committed (possibly with other callers' work, in one commit) before
     * this returns; rolled back when it throws, without touching the others' work.
     */
    <T> T transaction(String what, Work<T> work) {
        Pending<T> mine = new Pending<>(what, work);
        synchronized (waiting) {
            waiting.addLast(mine);
        }
        // The caller that gets the writer runs the batches until its own is done; the others wait on their own
        // pending (no queue on the lock: on a saturated host each hand-over of a lock costs a scheduling turn).
        while (!mine.done) {
            if (writer.tryLock()) {
                try {
                    while (!mine.done) {
                        runBatch(drain());
                    }
                } finally {
                    writer.unlock();
                }
                handOn();
            } else {
                mine.awaitTurn();
            }
        }
        return mine.outcome();
    }

    /** After the writer is let go: the oldest write still waiting (if any) takes it next. */
    private void handOn() {
        Pending<?> next;
        synchronized (waiting) {
            next = waiting.peekFirst();
        }
        if (next != null) {
            next.wake();
        }
    }

    /**
     * Runs {@code work}, which only reads, on a reader connection (no lock; it sees every committed write), or on the
     * writer when all readers are busy.
     */
    <T> T read(String what, Work<T> work) {
        if (!readerPermits.tryAcquire()) {
            return transaction(what, work);
        }
        try {
            if (closed) {
                throw closedFor(what);
            }
            Connection c = idleReaders.pollFirst();
            if (c == null) {
                c = open(true);
            }
            boolean keep = false;
            try {
                T result = work.run(c);
                keep = true;
                return result;
            } catch (SQLException e) {
                keep = stillValid(c);
                throw failure(what, e);
            } catch (RuntimeException e) {
                keep = stillValid(c);
                throw e;
            } finally {
                if (keep && !closed) {
                    idleReaders.addFirst(c);
                } else {
                    closeQuietly(c);
                    if (!keep) {
                        brokenConnectionSeen();
                    }
                }
            }
        } finally {
            readerPermits.release();
        }
    }

    /** Tests: the next batch counts {@code parked} down, then waits for {@code open} before it runs. */
    void holdNextBatch(CountDownLatch parked, CountDownLatch open) {
        this.batchGate = new CountDownLatch[] {parked, open};
    }

    /** Commits the writer has made (tests). */
    long commits() {
        return commits.get();
    }

    /** Writes waiting for the writer right now (tests). */
    int waitingWrites() {
        synchronized (waiting) {
            return waiting.size();
        }
    }

    private List<Pending<?>> drain() {
        List<Pending<?>> batch = new ArrayList<>();
        synchronized (waiting) {
            while (!waiting.isEmpty() && batch.size() < MAX_BATCH) {
                batch.add(waiting.pollFirst());
            }
        }
        return batch;
    }

    /** Under the writer lock: every pending of {@code batch} is done when this returns. */
    private void runBatch(List<Pending<?>> batch) {
        CountDownLatch[] gate = batchGate;
        if (gate != null) {
            batchGate = null;
            gate[0].countDown();
            try {
                gate[1].await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (waiting) { // what arrived while parked joins this batch, in order
                while (!waiting.isEmpty() && batch.size() < MAX_BATCH) {
                    batch.add(waiting.pollFirst());
                }
            }
        }
        try {
            if (closed) {
                for (Pending<?> p : batch) {
                    p.fail(closedFor(p.what));
                }
                return;
            }
            Connection c;
            try {
                c = connection();
            } catch (RuntimeException e) {
                batch.forEach(p -> p.fail(e));
                return;
            }
            if (batch.size() == 1) {
                runAlone(c, batch.get(0));
            } else {
                runTogether(c, batch);
            }
        } finally {
            for (Pending<?> p : batch) {
                if (!p.done) {
                    p.fail(new SettingsStoreException("settings store could not " + p.what + " on " + url.redacted()
                            + ": the batch it was written in failed"));
                }
            }
        }
    }

    private <T> void runAlone(Connection c, Pending<T> p) {
        try {
            T result = p.work.run(c);
            c.commit();
            commits.incrementAndGet();
            p.succeed(result);
        } catch (SQLException e) {
            rollbackAfterFailure(c);
            p.fail(failure(p.what, e));
        } catch (RuntimeException e) {
            rollbackAfterFailure(c);
            p.fail(e);
        }
    }

    /** Each pending behind its own savepoint, one commit for all. */
    private void runTogether(Connection c, List<Pending<?>> batch) {
        List<Pending<?>> ran = new ArrayList<>();
        for (Pending<?> p : batch) {
            Savepoint savepoint;
            try {
                savepoint = c.setSavepoint();
            } catch (SQLException e) {
                abandon(c, batch, e);
                return;
            }
            RuntimeException failed = runOne(c, p);
            if (failed == null) {
                ran.add(p);
                continue;
            }
            try {
                c.rollback(savepoint);
                p.fail(failed);
            } catch (SQLException e) {
                abandon(c, batch, e);
                return;
            }
        }
        try {
            c.commit();
            commits.incrementAndGet();
        } catch (SQLException e) {
            abandon(c, batch, e);
            return;
        }
        ran.forEach(Pending::commit);
    }

    /** Runs {@code p}'s work, keeping its result on it; the failure it raised, or null. */
    private RuntimeException runOne(Connection c, Pending<?> p) {
        try {
            p.runOn(c);
            return null;
        } catch (SQLException e) {
            return failure(p.what, e);
        } catch (RuntimeException e) {
            return e;
        }
    }

    /** The batch's transaction is lost (the connection failed): every pending of it not failed alone fails. */
    private void abandon(Connection c, List<Pending<?>> batch, SQLException e) {
        rollbackAfterFailure(c);
        for (Pending<?> p : batch) {
            if (!p.done) {
                p.fail(failure(p.what, e));
            }
        }
    }

    private SettingsStoreException failure(String what, SQLException e) {
        return new SettingsStoreException(
                "settings store could not " + what + " on " + url.redacted() + ": " + e.getMessage() + " (SQLState "
                        + e.getSQLState() + ")",
                e);
    }

    private SettingsStoreException closedFor(String what) {
        return new SettingsStoreException("settings store " + url.redacted() + " is closed; cannot " + what);
    }

    private Connection connection() {
        if (checkWriter) {
            checkWriter = false;
            if (connection != null && !stillValid(connection)) {
                closeQuietly(connection);
                connection = null;
            }
        }
        if (connection == null) {
            connection = open(false);
        }
        return connection;
    }

    /**
     * One connection was found broken, so the others likely are too (the database restarted, or was shut): the idle
     * readers are dropped and the writer is checked before its next use, so the call that found it is the only one
     * that fails, as it was with a single connection.
     */
    private void brokenConnectionSeen() {
        checkWriter = true;
        for (Connection c = idleReaders.pollFirst(); c != null; c = idleReaders.pollFirst()) {
            closeQuietly(c);
        }
    }

    private Connection open(boolean reader) {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        if (url.kind() == DatabaseUrl.Kind.POSTGRES) {
            // Defaults only: parameters in the URL win.
            props.setProperty("ApplicationName", "roboco-sandbox");
            props.setProperty("connectTimeout", "10");
            props.setProperty("socketTimeout", "60");
        }
        try {
            Connection c = DriverManager.getConnection(url.url(), props);
            c.setAutoCommit(reader); // a reader's single statements commit themselves
            return c;
        } catch (SQLException e) {
            throw new SettingsStoreException(
                    "cannot open the settings database " + url.redacted() + " as user '" + user + "': " + e.getMessage()
                            + ". " + hint(e),
                    e);
        }
    }

    private String hint(SQLException e) {
        String message = String.valueOf(e.getMessage());
        if (url.kind() == DatabaseUrl.Kind.H2) {
            if (message.contains("already in use")) {
                return "Another process (a second server?) has this state directory open; stop it, or give this "
                        + "server its own ROBOCO_SANDBOX_STATE_DIR.";
            }
            return "Check that the state directory exists and is writable by this user.";
        }
        return "Check that PostgreSQL is running and reachable at that host and port, that the database exists, "
                + "and that the user and password are right.";
    }

    private static boolean stillValid(Connection c) {
        try {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    private void rollbackAfterFailure(Connection c) {
        try {
            c.rollback();
            if (c.isValid(2)) {
                return;
            }
        } catch (SQLException ignored) {
            // the connection is broken; drop it below
        }
        closeQuietly(c);
        connection = null;
        brokenConnectionSeen();
    }

    @Override
    public void close() {
        writer.lock();
        try {
            closed = true;
            if (connection != null) {
                closeQuietly(connection);
                connection = null;
            }
        } finally {
            writer.unlock();
        }
        for (Connection c = idleReaders.pollFirst(); c != null; c = idleReaders.pollFirst()) {
            closeQuietly(c);
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // nothing more to do with a connection we are discarding
        }
    }

    /** One caller's write, waiting for the writer; done once committed or failed. */
    private static final class Pending<T> {
        final String what;
        final Work<T> work;
        private final Semaphore turn = new Semaphore(0);
        private T result;
        private RuntimeException failure;
        volatile boolean done;

        Pending(String what, Work<T> work) {
            this.what = what;
            this.work = work;
        }

        void runOn(Connection c) throws SQLException {
            result = work.run(c);
        }

        void succeed(T value) {
            result = value;
            finish();
        }

        void commit() {
            finish();
        }

        void fail(RuntimeException e) {
            result = null;
            failure = e;
            finish();
        }

        private void finish() {
            done = true;
            turn.release();
        }

        /** Woken: to try for the writer (its holder let it go) or because this is done. */
        void wake() {
            turn.release();
        }

        void awaitTurn() {
            turn.acquireUninterruptibly();
        }

        T outcome() {
            if (failure != null) {
                throw failure;
            }
            return result;
        }
    }
}
