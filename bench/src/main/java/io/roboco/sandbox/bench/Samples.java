package io.roboco.sandbox.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Latencies of one contender in milliseconds, and their order statistics. */
final class Samples {
    private final String name;
    private final List<Double> values = Collections.synchronizedList(new ArrayList<>());
    private int failures;

    Samples(String name) {
        this.name = name;
    }

    String name() {
        return name;
    }

    void add(double millis) {
        values.add(millis);
    }

    synchronized void failed() {
        failures++;
    }

    synchronized int failures() {
        return failures;
    }

    int count() {
        return values.size();
    }

    double median() {
        return percentile(50);
    }

    double p95() {
        return percentile(95);
    }

    double min() {
        return sorted().stream().findFirst().orElse(Double.NaN);
    }

    double max() {
        List<Double> s = sorted();
        return s.isEmpty() ? Double.NaN : s.get(s.size() - 1);
    }

    /** Linear interpolation between closest ranks (the median of an even count is the mean of the middle two). */
    double percentile(double p) {
        List<Double> s = sorted();
        if (s.isEmpty()) {
            return Double.NaN;
        }
        double rank = p / 100.0 * (s.size() - 1);
        int lo = (int) Math.floor(rank);
        int hi = (int) Math.ceil(rank);
        return s.get(lo) + (s.get(hi) - s.get(lo)) * (rank - lo);
    }

    List<Double> sorted() {
        List<Double> copy;
        synchronized (values) {
            copy = new ArrayList<>(values);
        }
        Collections.sort(copy);
        return copy;
    }

    Map<String, Object> asJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n", count());
        m.put("failures", failures());
        m.put("median_ms", round(median()));
        m.put("p95_ms", round(p95()));
        m.put("min_ms", round(min()));
        m.put("max_ms", round(max()));
        List<Double> raw;
        synchronized (values) {
            raw = new ArrayList<>(values);
        }
        m.put("samples_ms", raw.stream().map(Samples::round).toList());
        return m;
    }

    static double round(double v) {
        return Double.isNaN(v) ? Double.NaN : Math.round(v * 10.0) / 10.0;
    }
}
