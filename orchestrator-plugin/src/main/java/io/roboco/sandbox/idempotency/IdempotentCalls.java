package io.roboco.sandbox.idempotency;

import io.roboco.sandbox.request.IdempotencyKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * Idempotency keys at the front door: a create or a checkpoint sent again with the same key (a retry after a lost
 * answer) gets the first call's answer, the same sandbox and credentials, instead of a second sandbox. One instance per
 * kind of answer (the HTTP API's, the MCP tools'); the adapters name the caller, the key, the operation and its
 * arguments, and this class does the rest:
 * <ul>
 *   <li>keys are scoped to the caller ({@code admin}, {@code client:job:ci}, {@code agent:dev-1}): another caller's key
 *       of the same text is another key;</li>
 *   <li>the same key with other arguments (or on another operation) is a {@link Outcome.Conflict}, never a replay;</li>
 *   <li>a retry arriving while the first call still runs waits for it (on the first call's lock, in
 *       {@code awaitFirst}) and then replays its answer; it never runs the operation a second time;</li>
 *   <li>only an answer the adapter calls final is kept ({@code remember}: a sandbox made, a checkpoint taken); a
 *       refusal to retry, a fault or an exception leaves nothing, so the retry runs afresh;</li>
 *   <li>a kept answer expires {@code ttl} after it was made; at most {@code perCaller} keys are kept per caller (the
 *       oldest finished one gives way). Keys live in this process's memory: a restart forgets them.</li>
 * </ul>
 */
public final class IdempotentCalls<T> {
    /** What a keyed call came to. */
    public sealed interface Outcome<T> {
        /** The answer, and whether it is a replay of an earlier call's. */
        record Answered<T>(T answer, boolean replayed) implements Outcome<T> {}

        /** The key was first used for other arguments or another operation; nothing ran. */
        record Conflict<T>(String reason) implements Outcome<T> {}

        /** The first call with this key still runs after {@code wait}; nothing ran. Retry later. */
        record StillRunning<T>(String reason) implements Outcome<T> {}
    }

    /** The operation itself. */
    @FunctionalInterface
    public interface Call<T> {
        T run() throws InterruptedException;
    }

    private final Duration ttl;
    private final Duration wait;
    private final int perCaller;
    private final Clock clock;
    /** caller → key → entry, each caller's in insertion order. Guarded by itself. */
    private final Map<String, LinkedHashMap<String, Entry<T>>> entries = new LinkedHashMap<>();

    private static final class Entry<T> {
        final String fingerprint;
        final String operation;
        final ReentrantLock running = new ReentrantLock();
        T answer;
        Instant expires;

        Entry(String fingerprint, String operation) {
            this.fingerprint = fingerprint;
            this.operation = operation;
        }

        boolean finished() {
            return answer != null;
        }
    }

    /**
     * @param ttl       how long a kept answer is replayed ({@code ROBOCO_SANDBOX_IDEMPOTENCY_TTL})
     * @param wait      the longest a retry waits for the first call still running
     * @param perCaller the most keys kept per caller
     */
    public IdempotentCalls(Duration ttl, Duration wait, int perCaller, Clock clock) {
        if (ttl.isNegative() || ttl.isZero() || wait.isNegative() || perCaller < 1) {
            throw new IllegalArgumentException("idempotency: ttl and wait must be positive, perCaller at least 1");
        }
        this.ttl = ttl;
        this.wait = wait;
        this.perCaller = perCaller;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** How long a kept answer is replayed: an hour, for retries after a lost answer, not for long-lived reuse. */
    public static final Duration TTL = Duration.ofHours(1);

    /** The longest a retry waits for the first call with its key (longer than any provisioning deadline). */
    public static final Duration WAIT = Duration.ofMinutes(10);

    /** The most keys kept per caller. */
    public static final int PER_CALLER = 1_000;

    /** With the server's limits: {@link #TTL}, {@link #WAIT}, {@link #PER_CALLER}. */
    public static <T> IdempotentCalls<T> standard(Clock clock) {
        return new IdempotentCalls<>(TTL, WAIT, PER_CALLER, clock);
    }

    public Duration ttl() {
        return ttl;
    }

    /**
     * Runs {@code call} once for ({@code caller}, {@code key}): the first time it runs; a later call with the same key
     * and the same {@code operation} and {@code arguments} gets the kept answer; with others, a conflict.
     *
     * @param operation what is asked ({@code POST /api/sandboxes}, {@code mcp:request_sandbox}); part of the fingerprint
     * @param arguments the request as the caller sent it (JSON values); compared by a canonical digest
     * @param remember  whether an answer is final and kept (false: a retryable refusal, a failure)
     */
    public Outcome<T> run(
            String caller,
            IdempotencyKey key,
            String operation,
            Map<String, ?> arguments,
            Predicate<T> remember,
            Call<T> call)
            throws InterruptedException {
        String fingerprint = fingerprint(operation, arguments);
        while (true) {
            Entry<T> entry;
            boolean first = false;
            synchronized (entries) {
                expire(clock.instant());
                LinkedHashMap<String, Entry<T>> mine = entries.computeIfAbsent(caller, c -> new LinkedHashMap<>());
                entry = mine.get(key.value());
                if (entry == null) {
                    entry = new Entry<>(fingerprint, operation);
                    entry.running.lock();
                    mine.put(key.value(), entry);
                    makeRoom(mine);
                    first = true;
                }
            }
            if (!entry.fingerprint.equals(fingerprint)) {
                return new Outcome.Conflict<>("Idempotency key '" + key + "' was first used for "
                        + (entry.operation.equals(operation)
                                ? "a " + operation + " with other arguments"
                                : entry.operation)
                        + "; a retry must send the same request, a new request needs a new key");
            }
            if (first) {
                return runFirst(caller, key, entry, remember, call);
            }
            if (!awaitFirst(entry)) {
                return new Outcome.StillRunning<>("the first request with idempotency key '" + key
                        + "' is still running after " + wait.toSeconds() + " s; retry with the same key later");
            }
            try {
                synchronized (entries) {
                    if (entry.finished()) {
                        return new Outcome.Answered<>(entry.answer, true);
                    }
                }
            } finally {
                entry.running.unlock();
            }
            // The first call kept nothing (it failed or was refused to retry): this one runs afresh.
        }
    }

    private Outcome<T> runFirst(String caller, IdempotencyKey key, Entry<T> entry, Predicate<T> remember, Call<T> call)
            throws InterruptedException {
        boolean kept = false;
        try {
            T answer = call.run();
            if (answer != null && remember.test(answer)) {
                synchronized (entries) {
                    entry.answer = answer;
                    entry.expires = clock.instant().plus(ttl);
                }
                kept = true;
            }
            return new Outcome.Answered<>(answer, false);
        } finally {
            if (!kept) {
                synchronized (entries) {
                    Map<String, Entry<T>> mine = entries.get(caller);
                    if (mine != null && mine.get(key.value()) == entry) {
                        mine.remove(key.value());
                    }
                }
            }
            entry.running.unlock();
        }
    }

    /** A retry waits here, on the first call's lock, until the first call is done (or {@code wait} has passed). */
    private boolean awaitFirst(Entry<T> entry) throws InterruptedException {
        return entry.running.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** How many keys are kept (finished or running), for every caller. */
    public int size() {
        synchronized (entries) {
            expire(clock.instant());
            return entries.values().stream().mapToInt(Map::size).sum();
        }
    }

    private void expire(Instant now) {
        for (Iterator<LinkedHashMap<String, Entry<T>>> callers =
                        entries.values().iterator();
                callers.hasNext(); ) {
            LinkedHashMap<String, Entry<T>> mine = callers.next();
            mine.values().removeIf(e -> e.finished() && !now.isBefore(e.expires));
            if (mine.isEmpty()) {
                callers.remove();
            }
        }
    }

    private void makeRoom(LinkedHashMap<String, Entry<T>> mine) {
        Iterator<Entry<T>> oldest = mine.values().iterator();
        while (mine.size() > perCaller && oldest.hasNext()) {
            if (oldest.next().finished()) {
                oldest.remove();
            }
        }
    }

    /** A digest of the operation and its arguments, the same for the same JSON whatever the order of object keys. */
    static String fingerprint(String operation, Map<String, ?> arguments) {
        StringBuilder canonical = new StringBuilder(operation).append('\n');
        canonical(arguments == null ? Map.of() : arguments, canonical);
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256")
                            .digest(canonical.toString().getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }

    private static void canonical(Object value, StringBuilder out) {
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> sorted = new TreeMap<>();
            map.forEach((k, v) -> sorted.put(String.valueOf(k), v));
            out.append('{');
            sorted.forEach((k, v) -> {
                quote(k, out);
                out.append(':');
                canonical(v, out);
                out.append(',');
            });
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (Object item : new ArrayList<>(list)) {
                canonical(item, out);
                out.append(',');
            }
            out.append(']');
        } else if (value instanceof String s) {
            quote(s, out);
        } else if (value instanceof Number n) {
            out.append('#').append(n.toString());
        } else {
            out.append(value); // true, false, null
        }
    }

    private static void quote(String s, StringBuilder out) {
        out.append('"').append(s.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
    }
}
