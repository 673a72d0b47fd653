package io.roboco.sandbox.web;

import io.roboco.sandbox.plugin.ActivityHistory;
import io.roboco.sandbox.plugin.ActivityHistory.MinutePoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The Sandboxes page's chart of the last hour, drawn on the server as inline SVG (no script, nothing fetched): the
 * live sandboxes per minute, and the granted requests' mean (line and dots) and slowest (rings) time to credentials.
 * Every coordinate is computed here, in the SVG's own units ({@link #WIDTH} x {@link #HEIGHT}); the template prints
 * them. The newest minute is at the right edge, an hour before it at the left.
 */
public record ActivityChart(List<Panel> panels, long requests, int liveNow) {
    public static final int WIDTH = 560;
    public static final int HEIGHT = 130;
    /** The plot area: x from {@link #LEFT} to {@link #RIGHT}, y from {@link #TOP} (the maximum) to {@link #BOTTOM} (zero). */
    public static final int LEFT = 44;

    public static final int RIGHT = 550;
    public static final int TOP = 12;
    public static final int BOTTOM = 104;

    /**
     * One chart.
     *
     * @param headline what it says in words (now, peak; or count, mean, slowest)
     * @param yMax     the label of the top of the scale
     * @param path     the main series as SVG path data (a new {@code M} after each gap), empty when none
     * @param dots     the main series' points
     * @param rings    the secondary series' points (the slowest request of each minute), empty for none
     */
    public record Panel(
            String id, String title, String headline, String yMax, String path, List<Dot> dots, List<Dot> rings) {}

    /** A point in SVG units, formatted for an attribute. */
    public record Dot(String x, String y) {}

    /** Whether there is anything to draw (an embedding without the server's metrics has no history). */
    public boolean shown() {
        return !panels.isEmpty();
    }

    /** The chart of {@code points} (oldest first, the current minute last). */
    public static ActivityChart of(List<MinutePoint> points) {
        if (points.isEmpty()) {
            return new ActivityChart(List.of(), 0, 0);
        }
        Instant newest = points.get(points.size() - 1).minute();
        int liveNow = points.get(points.size() - 1).liveSandboxes();
        int livePeak =
                points.stream().mapToInt(MinutePoint::liveSandboxes).max().orElse(0);
        long requests = points.stream().mapToLong(MinutePoint::requests).sum();
        List<MinutePoint> served = points.stream().filter(p -> p.requests() > 0).toList();
        Duration slowest = served.stream()
                .map(MinutePoint::maxLatency)
                .max(Duration::compareTo)
                .orElse(Duration.ZERO);
        long totalNanos = served.stream()
                .mapToLong(p -> p.meanLatency().toNanos() * p.requests())
                .sum();
        Duration mean = requests == 0 ? Duration.ZERO : Duration.ofNanos(totalNanos / requests);

        double liveScale = Math.max(1, livePeak);
        Panel live = new Panel(
                "activity-live",
                "Live sandboxes",
                liveNow + " now, peak " + livePeak,
                String.valueOf(Math.max(1, livePeak)),
                path(points, newest, p -> p.liveSandboxes() / liveScale, true),
                List.of(),
                List.of());
        double latencyScale = Math.max(1, slowest.toNanos());
        Panel latency = new Panel(
                "activity-latency",
                "Request latency",
                requests == 0
                        ? "no granted requests in the last hour"
                        : requests + (requests == 1 ? " granted request" : " granted requests") + ", mean "
                                + format(mean) + ", slowest " + format(slowest),
                requests == 0 ? "" : format(slowest),
                path(served, newest, p -> p.meanLatency().toNanos() / latencyScale, false),
                dots(served, newest, p -> p.meanLatency().toNanos() / latencyScale),
                dots(served, newest, p -> p.maxLatency().toNanos() / latencyScale));
        return new ActivityChart(List.of(live, latency), requests, liveNow);
    }

    /** Empty history: no chart. */
    public static ActivityChart of(ActivityHistory history) {
        return of(history.lastHour());
    }

    /**
     * The series as path data, a new subpath after each gap. With {@code steps} (a count) each minute's value is a
     * level from the minute before it to its own x, so a lone minute still shows; otherwise (a measurement) the
     * minutes' points are joined straight, and a lone one is left to its dot.
     */
    static String path(List<MinutePoint> points, Instant newest, ToDoubleFunction<MinutePoint> value, boolean steps) {
        StringBuilder d = new StringBuilder();
        long previous = Long.MIN_VALUE;
        String lastY = null;
        for (MinutePoint p : points) {
            long index = index(p.minute(), newest);
            String x = num(x(index));
            String y = num(y(value.applyAsDouble(p)));
            boolean joined = index == previous + 1;
            if (steps) {
                if (!joined) {
                    d.append(d.length() == 0 ? "" : " ")
                            .append('M')
                            .append(num(Math.max(LEFT, x(index - 1))))
                            .append(' ')
                            .append(y);
                } else if (!y.equals(lastY)) {
                    d.append(" V").append(y);
                }
                d.append(" H").append(x);
            } else {
                d.append(d.length() == 0 ? "" : " ")
                        .append(joined ? 'L' : 'M')
                        .append(x)
                        .append(' ')
                        .append(y);
            }
            previous = index;
            lastY = y;
        }
        return d.toString();
    }

    private static List<Dot> dots(List<MinutePoint> points, Instant newest, ToDoubleFunction<MinutePoint> value) {
        List<Dot> dots = new ArrayList<>();
        for (MinutePoint p : points) {
            dots.add(new Dot(num(x(index(p.minute(), newest))), num(y(value.applyAsDouble(p)))));
        }
        return dots;
    }

    /** 0 for the minute an hour before the newest, {@code MINUTES - 1} for the newest. */
    private static long index(Instant minute, Instant newest) {
        return ActivityHistory.MINUTES - 1 - Duration.between(minute, newest).toMinutes();
    }

    static double x(long index) {
        return LEFT + (RIGHT - LEFT) * (double) index / (ActivityHistory.MINUTES - 1);
    }

    /** {@code fraction} of the scale (0..1) as a y: zero at the bottom. */
    static double y(double fraction) {
        return BOTTOM - (BOTTOM - TOP) * Math.max(0, Math.min(1, fraction));
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** {@code 85 ms}, {@code 2.1 s}. */
    static String format(Duration d) {
        long ms = d.toMillis();
        return ms < 1000 ? Math.max(ms, 0) + " ms" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
