package io.roboco.sandbox.limits;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One agent's fair share of the server, per token: at most {@code maxConcurrent} calls under way and {@code perMinute}
 * calls begun in any sliding minute. {@link #tryAcquire} answers a {@link Permit} that the caller closes when its call
 * ends, or a {@link Refusal} that says when to retry; it never waits, so an agent over its share holds no server
 * thread. Keys are agent slugs; the state per key is a counter and at most {@code perMinute} instants.
 */
public final class FairShare {
    private static final Duration WINDOW = Duration.ofMinutes(1);
    /** How soon to try again when every concurrent slot is taken: calls are expected to end within about this. */
    static final Duration BUSY_RETRY = Duration.ofSeconds(1);

    private final int maxConcurrent;
    private final int perMinute;
    private final Clock clock;
    private final Map<String, Share> shares = new ConcurrentHashMap<>();

    public FairShare(int maxConcurrent, int perMinute, Clock clock) {
        if (maxConcurrent < 1 || perMinute < 1) {
            throw new IllegalArgumentException(
                    "fair-share limits must be at least 1: " + maxConcurrent + ", " + perMinute);
        }
        this.maxConcurrent = maxConcurrent;
        this.perMinute = perMinute;
        this.clock = clock;
    }

    /** A call admitted; {@link #close()} ends it (once; later closes do nothing). */
    public interface Permit extends AutoCloseable {
        @Override
        void close();
    }

    /** Over a limit: the reason (naming the limit and its setting) and when a retry can succeed. */
    public record Refusal(String reason, Duration retryAfter) {
        public long retryAfterSeconds() {
            return Math.max(1, (retryAfter.toMillis() + 999) / 1000);
        }
    }

    /** The outcome of {@link #tryAcquire}: exactly one of the two is present. */
    public record Admission(Optional<Permit> permit, Optional<Refusal> refusal) {}

    public Admission tryAcquire(String key) {
        Share share = shares.computeIfAbsent(key, k -> new Share());
        Instant now = clock.instant();
        synchronized (share) {
            share.forgetBefore(now.minus(WINDOW));
            if (share.running >= maxConcurrent) {
                return refused(
                        "you have " + share.running + " calls under way, the most one agent token may have at once"
                                + " (ROBOCO_SANDBOX_MCP_MAX_CONCURRENT_CALLS=" + maxConcurrent
                                + "); retry when one has answered, in about "
                                + BUSY_RETRY.toSeconds() + " s",
                        BUSY_RETRY);
            }
            if (share.begun.size() >= perMinute) {
                Duration wait = Duration.between(now, share.begun.peekFirst().plus(WINDOW));
                Refusal r = new Refusal("", wait.isNegative() ? Duration.ZERO : wait);
                return refused(
                        "you began " + share.begun.size() + " calls in the last minute, the most one agent token may"
                                + " (ROBOCO_SANDBOX_MCP_CALLS_PER_MINUTE=" + perMinute + "); retry in "
                                + r.retryAfterSeconds() + " s",
                        r.retryAfter());
            }
            share.running++;
            share.begun.addLast(now);
        }
        return new Admission(Optional.of(new Once(share)), Optional.empty());
    }

    /** Calls under way for {@code key} (tests and metrics). */
    public int running(String key) {
        Share share = shares.get(key);
        if (share == null) {
            return 0;
        }
        synchronized (share) {
            return share.running;
        }
    }

    private static Admission refused(String reason, Duration retryAfter) {
        return new Admission(Optional.empty(), Optional.of(new Refusal(reason, retryAfter)));
    }

    private static final class Share {
        int running;
        final Deque<Instant> begun = new ArrayDeque<>();

        void forgetBefore(Instant cutoff) {
            while (!begun.isEmpty() && !begun.peekFirst().isAfter(cutoff)) {
                begun.removeFirst();
            }
        }
    }

    private static final class Once implements Permit {
        private final Share share;
        private boolean closed;

        Once(Share share) {
            this.share = share;
        }

        @Override
        public void close() {
            synchronized (share) {
                if (!closed) {
                    closed = true;
                    share.running--;
                }
            }
        }
    }
}
