package io.roboco.sandbox.settings;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place audit records are made and written. Every road that audits (the core's front door, the verbs' refusals,
 * the MCP gate, the janitor, re-adoption, the operator's foreign cleanup) hands its fields here; the trail builds the
 * {@link AuditRecord} and writes it so that a store fault never loses one and never fails the caller: a record the store
 * refuses is kept (up to {@value #MAX_KEPT}, oldest dropped first, with a count in the log) and written before the next
 * one, or at {@link #flush()} (the plugin's close). Thread-safe; never throws.
 *
 * <p><b>Group commit</b> (issue 21): a caller returns only once its record is written (durable before the answer,
 * never fire-and-forget), or kept after a store fault. Records that arrive while a write is under way wait for it and
 * are then written together by one of them, in order, in one {@link AuditLog#appendAll} (one transaction and one flush
 * on the JDBC store), so concurrent calls share commits instead of queueing one commit each behind a lock. The writer
 * writes until its own record is written, then hands the pen to a waiter.
 */
public final class AuditTrail {
    private static final Logger log = LoggerFactory.getLogger(AuditTrail.class);
    static final int MAX_KEPT = 10_000;
    /** Most records one group commit writes. */
    static final int BATCH = 1_000;

    private final AuditLog store;
    private final Clock clock;
    private final Object lock = new Object();
    /** Records not written yet, oldest first: waiting for the next batch, or kept after a store fault. */
    private final Deque<AuditRecord> unwritten = new ArrayDeque<>();

    private long dropped;
    /** A caller is writing a batch now (outside the lock). */
    private boolean writing;
    /** Records appended so far, and how many of them are settled: written, kept after a fault, or dropped. */
    private long appended;

    private long settled;
    /** Batches written and records in them (group commits), for tests and figures. */
    private long batches;

    private long batched;

    /** A trail writing to {@code store}, its records timed by {@code clock}. */
    public AuditTrail(AuditLog store, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** A trail writing to {@code sink} (a test's list, a caller's own log), its records timed by {@code clock}. */
    public static AuditTrail to(Consumer<AuditRecord> sink, Clock clock) {
        Objects.requireNonNull(sink, "sink");
        return new AuditTrail(
                new AuditLog() {
                    @Override
                    public void append(AuditRecord record) {
                        sink.accept(record);
                    }

                    @Override
                    public List<AuditRecord> recent(String agent, String decision, int limit) {
                        return List.of();
                    }
                },
                clock);
    }

    AuditTrail(AuditLog store) {
        this(store, Clock.systemUTC());
    }

    /**
     * Records one call that began at {@code startNanos} (a {@link System#nanoTime()}) and ends now.
     *
     * @param actor    the agent slug, owner or caller the record is filed under ({@code ""} for none)
     * @param decision {@code granted}, {@code refused}, {@code invalid_state}, {@code released}, …
     * @param reason   a short explanation, never a credential
     */
    public void record(
            String actor,
            String project,
            String verb,
            String decision,
            String reason,
            List<String> services,
            long startNanos) {
        long millis = Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
        recordAt(clock.instant(), actor, project, verb, decision, reason, services, millis);
    }

    /** Records one event at {@code time} that took {@code millis} (a sweep that began earlier, a refusal that took none). */
    public void recordAt(
            Instant time,
            String actor,
            String project,
            String verb,
            String decision,
            String reason,
            List<String> services,
            long millis) {
        append(new AuditRecord(time, actor, project, verb, decision, reason, services, millis));
    }

    /** The instant a record made now would carry. */
    public Instant now() {
        return clock.instant();
    }

    /** Appends {@code record} and returns once it is written (or kept after a store fault). */
    void append(AuditRecord record) {
        long mine;
        synchronized (lock) {
            unwritten.addLast(record);
            mine = ++appended;
            trim();
        }
        settle(mine);
    }

    /** Writes every kept record, oldest first; stops at the first store fault (they stay kept). */
    public void flush() {
        settle(Long.MAX_VALUE);
    }

    /**
     * Returns once record number {@code mine} is settled (written, or kept after a store fault), writing batches itself
     * while nobody else is: the oldest unwritten records first, at most {@value #BATCH} a batch.
     */
    private void settle(long mine) {
        boolean interrupted = false;
        try {
            while (true) {
                List<AuditRecord> batch;
                long end;
                synchronized (lock) {
                    while (writing && settled < mine) {
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            interrupted = true; // a caller's record is written before it returns, interrupt or not
                        }
                    }
                    if (settled >= mine || unwritten.isEmpty()) {
                        return;
                    }
                    writing = true;
                    int n = Math.min(BATCH, unwritten.size());
                    batch = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        batch.add(unwritten.pollFirst());
                    }
                    // unwritten is always the newest records, in order: the batch ends this many from the newest.
                    end = appended - unwritten.size();
                }
                int written = write(batch);
                synchronized (lock) {
                    writing = false;
                    lock.notifyAll();
                    if (written < batch.size()) {
                        List<AuditRecord> back = batch.subList(written, batch.size());
                        for (int i = back.size() - 1; i >= 0; i--) {
                            unwritten.addFirst(back.get(i));
                        }
                        trim();
                        settled = appended; // all kept: every caller goes on, the records wait for a retry
                        return;
                    }
                    batches++;
                    batched += batch.size();
                    settled = Math.max(settled, end);
                    if (dropped > 0) {
                        log.error(
                                "{} audit record(s) were dropped: the store refused writes while more than {} were kept",
                                dropped,
                                MAX_KEPT);
                        dropped = 0;
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Writes {@code batch} in order; how many of it were written (all, or those before the store's fault). */
    private int write(List<AuditRecord> batch) {
        try {
            if (batch.size() == 1) {
                store.append(batch.get(0));
            } else {
                store.appendAll(batch);
            }
            return batch.size();
        } catch (AuditLog.PartialAppend e) {
            warn(batch.get(e.written()), batch.size() - e.written(), e);
            return e.written();
        } catch (RuntimeException | Error e) { // never throws: whatever the store did, the records are kept
            warn(batch.get(0), batch.size(), e);
            return 0;
        }
    }

    private void warn(AuditRecord next, int kept, Throwable e) {
        log.warn(
                "could not write audit record for {} {} ({} kept for a retry): {}",
                next.verb(),
                next.agent(),
                kept,
                e.getMessage());
    }

    /** Drops the oldest kept records beyond {@link #MAX_KEPT}. Under the lock. */
    private void trim() {
        while (unwritten.size() > MAX_KEPT) {
            unwritten.removeFirst();
            dropped++;
        }
    }

    int kept() {
        synchronized (lock) {
            return unwritten.size();
        }
    }

    /** Group commits so far: how many batches were written, and how many records they held. */
    long[] commits() {
        synchronized (lock) {
            return new long[] {batches, batched};
        }
    }
}
