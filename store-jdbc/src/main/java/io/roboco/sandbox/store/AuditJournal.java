package io.roboco.sandbox.store;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.SettingsStoreException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit trail's write-ahead file (issue 21): a call's record is durable once one {@code write} has put its line in
 * {@code <state>/audit.journal} (it survives the server being killed, as the embedded database's commits do: neither
 * forces the disk), and the answer goes out then; a background thread moves the lines into the database in batches,
 * one transaction each, and empties the file whenever it has caught up. A cache hit so waits for one small append
 * instead of a database commit.
 *
 * <p>The move waits for a quiet moment: until no record has been appended for {@link #QUIET}, or the oldest waiting
 * record has waited {@link #MAX_LAG}, or {@link #BATCH} wait, or a read or {@link #close()} asks for them. A burst of
 * calls so is not slowed by the database work its own records cause (a commit's page serialization, on the same cores
 * as the calls), and its records reach the database in one transaction after it instead of in many during it.
 *
 * <p>Reads of the trail {@link #drain() drain} first, so they see every record appended before them. Opening replays
 * whatever a killed server left in the file (skipping the records its database already holds: the ones written in the
 * moment between a batch's commit and the file being emptied; and a torn last line, whose call was never answered).
 *
 * <p>The file is written through a {@link RandomAccessFile}, not a {@code FileChannel}: a channel is interruptible, and
 * one thread interrupted inside (or on its way into) a write closes it for every thread. The janitor is interrupted at
 * shutdown while it may be auditing its sweep, and the shutdown's own release records then found the journal closed
 * (ShutdownLeavesNothingIT: "cannot append to the audit journal: ClosedByInterruptException", then
 * ClosedChannelException, the release's record lost).
 */
final class AuditJournal implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AuditJournal.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** At most this many records a database transaction. */
    private static final int BATCH = 500;
    /** A read waits at most this long for the journal to reach the database (a failing database: it reads without). */
    private static final Duration DRAIN_WAIT = Duration.ofSeconds(10);

    private static final Duration RETRY = Duration.ofSeconds(1);
    /** The move starts once no record has been appended for this long, */
    static final Duration QUIET = Duration.ofMillis(100);
    /** or once the oldest record not yet moved has waited this long. */
    static final Duration MAX_LAG = Duration.ofSeconds(1);

    /** Where the batches go: the database, in one transaction per call, all or none. */
    interface Sink {
        void write(List<AuditRecord> batch);
    }

    /** One line of the file. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    private record Line(
            String time,
            String agent,
            String project,
            String verb,
            String decision,
            String reason,
            List<String> services,
            long ms) {
        static Line of(AuditRecord r) {
            return new Line(
                    r.time().toString(),
                    r.agent(),
                    r.project(),
                    r.verb(),
                    r.decision(),
                    r.reason(),
                    r.services(),
                    r.durationMillis());
        }

        AuditRecord record() {
            return new AuditRecord(Instant.parse(time), agent, project, verb, decision, reason, services, ms);
        }
    }

    private final Path file;
    /** Written and emptied under {@link #lock} only, so its pointer is always at the end. */
    private final RandomAccessFile out;

    private final Sink sink;
    private final Object lock = new Object();
    /** Appended to the file, not yet in the database, oldest first. */
    private final ArrayDeque<AuditRecord> pending = new ArrayDeque<>();

    private final Thread drainer;
    private final long quietNanos;
    private final long maxLagNanos;
    private long appended;
    private long drained;
    private boolean closing;
    /** {@link System#nanoTime()} of the last append, and of the first append since {@link #pending} was last empty. */
    private long lastAppendAt;

    private long oldestPendingAt;
    /** Reads waiting in {@link #drain()}: the move does not wait for a quiet moment while one does. */
    private int readers;

    private AuditJournal(Path file, RandomAccessFile out, Sink sink, Duration quiet, Duration maxLag) {
        this.file = file;
        this.out = out;
        this.sink = sink;
        this.quietNanos = quiet.toNanos();
        this.maxLagNanos = maxLag.toNanos();
        this.drainer = new Thread(this::drainLoop, "roboco-audit-journal");
        this.drainer.setDaemon(true);
    }

    /**
     * Opens (creating) the journal at {@code file}, first moving what an earlier process left in it into {@code sink};
     * {@code newest} reads the database's newest records (at most the given number) so replay skips those it holds.
     */
    static AuditJournal open(Path file, Sink sink, IntFunction<List<AuditRecord>> newest) {
        return open(file, sink, newest, QUIET, MAX_LAG);
    }

    /** {@link #open(Path, Sink, IntFunction)} with the move's {@code quiet} moment and {@code maxLag} given. */
    static AuditJournal open(
            Path file, Sink sink, IntFunction<List<AuditRecord>> newest, Duration quiet, Duration maxLag) {
        try {
            replay(file, sink, newest);
            RandomAccessFile out = new RandomAccessFile(file.toFile(), "rw");
            try {
                out.setLength(0);
            } catch (IOException e) {
                out.close();
                throw e;
            }
            AuditJournal journal = new AuditJournal(file, out, sink, quiet, maxLag);
            journal.drainer.start();
            return journal;
        } catch (IOException e) {
            throw new SettingsStoreException(
                    "cannot open the audit journal " + file + ": " + e + "; check that the state directory is writable",
                    e);
        }
    }

    private static void replay(Path file, Sink sink, IntFunction<List<AuditRecord>> newest) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<AuditRecord> left = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String text = lines.get(i);
            if (text.isBlank()) {
                continue;
            }
            try {
                left.add(JSON.readValue(text, Line.class).record());
            } catch (IOException | RuntimeException e) {
                // Only the last line can be torn (the server died inside its write): that call was never answered.
                LOG.warn(
                        "audit journal {}: line {} of {} is unreadable ({}), skipped",
                        file,
                        i + 1,
                        lines.size(),
                        i == lines.size() - 1 ? "torn by the stop" : "damaged");
            }
        }
        if (left.isEmpty()) {
            return;
        }
        Set<AuditRecord> held = new HashSet<>();
        for (AuditRecord r : newest.apply(left.size())) {
            held.add(stored(r));
        }
        List<AuditRecord> missing =
                left.stream().filter(r -> !held.contains(stored(r))).toList();
        if (!missing.isEmpty()) {
            sink.write(missing);
        }
        LOG.info(
                "audit journal {}: {} record(s) an earlier process left moved into the store ({} were there already)",
                file,
                missing.size(),
                left.size() - missing.size());
    }

    /** {@code r} as the database gives it back (its time to the microsecond). */
    private static AuditRecord stored(AuditRecord r) {
        return new AuditRecord(
                r.time().truncatedTo(ChronoUnit.MICROS),
                r.agent(),
                r.project(),
                r.verb(),
                r.decision(),
                r.reason(),
                r.services(),
                r.durationMillis());
    }

    /** Returns once {@code records} are in the file, in order; the database gets them soon after. */
    void append(List<AuditRecord> records) {
        if (records.isEmpty()) {
            return;
        }
        StringBuilder text = new StringBuilder();
        for (AuditRecord r : records) {
            try {
                text.append(JSON.writeValueAsString(Line.of(r))).append('\n');
            } catch (IOException e) {
                throw new SettingsStoreException("cannot write an audit record as JSON: " + e.getMessage(), e);
            }
        }
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        synchronized (lock) {
            if (closing) {
                throw new SettingsStoreException("the audit journal " + file + " is closed");
            }
            try {
                out.write(bytes);
            } catch (IOException e) {
                throw new SettingsStoreException(
                        "cannot append to the audit journal " + file + ": " + e + "; check the state directory's disk",
                        e);
            }
            long now = System.nanoTime();
            if (pending.isEmpty()) {
                oldestPendingAt = now;
                lock.notifyAll(); // the drainer sleeps until there is something; then it waits for a quiet moment
            }
            lastAppendAt = now;
            pending.addAll(records);
            appended += records.size();
            if (pending.size() >= BATCH) {
                lock.notifyAll();
            }
        }
    }

    /**
     * Returns once every record appended before the call is in the database (or after {@link #DRAIN_WAIT} while the
     * database refuses them: they stay in the file, and the read goes on without them).
     */
    void drain() {
        long deadline = System.nanoTime() + DRAIN_WAIT.toNanos();
        synchronized (lock) {
            long target = appended;
            if (drained >= target) {
                return;
            }
            readers++;
            lock.notifyAll(); // the drainer stops waiting for a quiet moment
            try {
                while (drained < target && drainer.isAlive()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        LOG.warn("audit journal {}: the store has not taken {} record(s) yet", file, target - drained);
                        return;
                    }
                    try {
                        lock.wait(Math.max(1, left / 1_000_000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            } finally {
                readers--;
            }
        }
    }

    private void drainLoop() {
        boolean failing = false;
        while (true) {
            List<AuditRecord> batch;
            synchronized (lock) {
                while (pending.isEmpty() && !closing) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (pending.isEmpty()) {
                    return; // closing, all moved
                }
                if (!awaitQuietMoment()) {
                    return; // interrupted
                }
                batch = new ArrayList<>(Math.min(BATCH, pending.size()));
                for (AuditRecord r : pending) {
                    if (batch.size() == BATCH) {
                        break;
                    }
                    batch.add(r);
                }
            }
            try {
                sink.write(batch);
            } catch (RuntimeException e) {
                if (!failing) {
                    LOG.warn(
                            "audit journal {}: the store refused {} record(s) ({}); they stay in the journal, retrying",
                            file,
                            batch.size(),
                            e.getMessage());
                }
                failing = true;
                synchronized (lock) {
                    if (closing) {
                        return; // kept in the file: the next start replays them
                    }
                    try {
                        lock.wait(RETRY.toMillis());
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
                continue;
            }
            if (failing) {
                LOG.info("audit journal {}: the store takes records again", file);
                failing = false;
            }
            synchronized (lock) {
                for (int i = 0; i < batch.size(); i++) {
                    pending.pollFirst();
                }
                drained += batch.size();
                if (pending.isEmpty()) {
                    try {
                        out.setLength(0); // and the pointer with it: the next line is the file's first
                    } catch (IOException e) {
                        LOG.warn("audit journal {}: cannot empty it ({}); a restart replays it", file, e.toString());
                    }
                }
                lock.notifyAll();
            }
        }
    }

    /**
     * Under {@link #lock}, with records pending: waits until no record has been appended for the quiet time, the oldest
     * has waited the longest lag, a batch is full, a read waits or the journal closes. False when interrupted.
     */
    private boolean awaitQuietMoment() {
        while (!closing && readers == 0 && pending.size() < BATCH) {
            long now = System.nanoTime();
            long left = Math.min(lastAppendAt + quietNanos - now, oldestPendingAt + maxLagNanos - now);
            if (left <= 0) {
                return true;
            }
            try {
                lock.wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                return false;
            }
        }
        return true;
    }

    /** Moves what is left into the database (unless it refuses), then closes the file. */
    @Override
    public void close() {
        synchronized (lock) {
            closing = true;
            lock.notifyAll();
        }
        try {
            drainer.join(DRAIN_WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            out.close();
        } catch (IOException e) {
            LOG.warn("audit journal {}: close failed: {}", file, e.toString());
        }
    }
}
