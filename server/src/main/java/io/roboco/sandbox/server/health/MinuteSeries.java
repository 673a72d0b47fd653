package io.roboco.sandbox.server.health;

import io.roboco.sandbox.plugin.ActivityHistory;
import io.roboco.sandbox.plugin.ActivityHistory.MinutePoint;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A ring of {@value ActivityHistory#MINUTES} per-minute slots: the live-sandbox count last seen in each minute and the
 * granted requests' count, total and slowest time to credentials. A slot is cleared when its minute comes round again
 * an hour later, so memory is fixed. It keeps no thread: counts are seen when they are given ({@link #live}), and a
 * minute in which none was given shows the count last seen before it. Thread-safe.
 */
final class MinuteSeries {
    private static final int SLOTS = ActivityHistory.MINUTES;

    private final Clock clock;
    /** The minute (epoch minutes) since which this series has been kept. */
    private final long firstMinute;

    private final long[] slotMinute = new long[SLOTS];
    private final int[] live = new int[SLOTS];
    private final boolean[] liveSeen = new boolean[SLOTS];
    private final long[] requests = new long[SLOTS];
    private final long[] totalNanos = new long[SLOTS];
    private final long[] maxNanos = new long[SLOTS];
    /** The count last seen and its minute, for minutes without one of their own. */
    private int lastLive;

    private long lastLiveMinute = -1;

    MinuteSeries(Clock clock) {
        this.clock = clock;
        this.firstMinute = minuteOf(clock.instant());
        Arrays.fill(slotMinute, -1);
    }

    /** {@code count} sandboxes are live now. */
    synchronized void live(int count) {
        long m = minuteOf(clock.instant());
        int slot = slot(m);
        live[slot] = count;
        liveSeen[slot] = true;
        if (m >= lastLiveMinute) {
            lastLive = count;
            lastLiveMinute = m;
        }
    }

    /** A granted request took {@code took} to credentials, now. */
    synchronized void request(Duration took) {
        int slot = slot(minuteOf(clock.instant()));
        long nanos = Math.max(0, took.toNanos());
        requests[slot]++;
        totalNanos[slot] += nanos;
        maxNanos[slot] = Math.max(maxNanos[slot], nanos);
    }

    /** The minutes from the later of an hour ago and this series' first, oldest first, the current minute last. */
    synchronized List<MinutePoint> lastHour() {
        long now = minuteOf(clock.instant());
        long from = Math.max(firstMinute, now - SLOTS + 1);
        List<MinutePoint> points = new ArrayList<>();
        int carried = carriedBefore(from);
        for (long m = from; m <= now; m++) {
            int slot = (int) Math.floorMod(m, (long) SLOTS);
            boolean current = slotMinute[slot] == m;
            if (current && liveSeen[slot]) {
                carried = live[slot];
            }
            long n = current ? requests[slot] : 0;
            Duration mean = n == 0 ? Duration.ZERO : Duration.ofNanos(totalNanos[slot] / n);
            Duration max = n == 0 ? Duration.ZERO : Duration.ofNanos(maxNanos[slot]);
            points.add(new MinutePoint(Instant.ofEpochSecond(m * 60), carried, n, mean, max));
        }
        return points;
    }

    /** The count last seen before minute {@code from} (a slot not yet reused may still hold it), else zero. */
    private int carriedBefore(long from) {
        if (lastLiveMinute >= 0 && lastLiveMinute < from) {
            return lastLive; // nothing seen since
        }
        long best = -1;
        int value = 0;
        for (int s = 0; s < SLOTS; s++) {
            if (liveSeen[s] && slotMinute[s] < from && slotMinute[s] > best) {
                best = slotMinute[s];
                value = live[s];
            }
        }
        return value;
    }

    /** The slot of minute {@code m}, cleared first when it still holds the minute an hour (or more) before. */
    private int slot(long m) {
        int slot = (int) Math.floorMod(m, (long) SLOTS);
        if (slotMinute[slot] != m) {
            slotMinute[slot] = m;
            live[slot] = 0;
            liveSeen[slot] = false;
            requests[slot] = 0;
            totalNanos[slot] = 0;
            maxNanos[slot] = 0;
        }
        return slot;
    }

    private static long minuteOf(Instant t) {
        return Math.floorDiv(t.getEpochSecond(), 60);
    }
}
