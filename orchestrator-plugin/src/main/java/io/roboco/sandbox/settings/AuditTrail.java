package io.roboco.sandbox.settings;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
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
 */
public final class AuditTrail {
    private static final Logger log = LoggerFactory.getLogger(AuditTrail.class);
    static final int MAX_KEPT = 10_000;

    private final Consumer<AuditRecord> store;
    private final Clock clock;
    private final Deque<AuditRecord> unwritten = new ArrayDeque<>();
    private long dropped;

    /** A trail writing to {@code store}, its records timed by {@code clock}. */
    public AuditTrail(AuditLog store, Clock clock) {
        this(Objects.requireNonNull(store, "store")::append, clock);
    }

    private AuditTrail(Consumer<AuditRecord> store, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** A trail writing to {@code sink} (a test's list, a caller's own log), its records timed by {@code clock}. */
    public static AuditTrail to(Consumer<AuditRecord> sink, Clock clock) {
        return new AuditTrail(sink, clock);
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

    void append(AuditRecord record) {
        synchronized (unwritten) {
            unwritten.addLast(record);
            if (unwritten.size() > MAX_KEPT) {
                unwritten.removeFirst();
                dropped++;
            }
        }
        flush();
    }

    /** Writes every kept record, oldest first; stops at the first store fault (they stay kept). */
    public void flush() {
        synchronized (unwritten) {
            while (!unwritten.isEmpty()) {
                AuditRecord next = unwritten.peekFirst();
                try {
                    store.accept(next);
                } catch (RuntimeException e) {
                    log.warn(
                            "could not write audit record for {} {} ({} kept for a retry): {}",
                            next.verb(),
                            next.agent(),
                            unwritten.size(),
                            e.getMessage());
                    return;
                }
                unwritten.removeFirst();
            }
            if (dropped > 0) {
                log.error(
                        "{} audit record(s) were dropped: the store refused writes while more than {} were kept",
                        dropped,
                        MAX_KEPT);
                dropped = 0;
            }
        }
    }

    int kept() {
        synchronized (unwritten) {
            return unwritten.size();
        }
    }
}
