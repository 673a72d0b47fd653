package io.roboco.sandbox.server;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses configuration durations: a positive whole number and a unit, {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}. */
public final class Durations {
    private static final Pattern SHAPE = Pattern.compile("([0-9]{1,9})(ms|s|m|h)");

    private Durations() {
    }

    public static Duration parse(String setting, String value) {
        Matcher m = value == null ? null : SHAPE.matcher(value.trim());
        if (m == null || !m.matches()) {
            throw new ConfigException(setting + "='" + value + "' is not a duration; use a whole number and a unit, e.g. 500ms, 30s, 5m, 1h");
        }
        long n = Long.parseLong(m.group(1));
        Duration d;
        switch (m.group(2)) {
            case "ms": d = Duration.ofMillis(n); break;
            case "s": d = Duration.ofSeconds(n); break;
            case "m": d = Duration.ofMinutes(n); break;
            default: d = Duration.ofHours(n); break;
        }
        if (d.isZero()) {
            throw new ConfigException(setting + "='" + value + "' must be longer than zero");
        }
        return d;
    }

    /** {@code 30s}, {@code 2m}, {@code 1500ms}: the shortest exact form, for messages and pages. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
