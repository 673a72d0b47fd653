package io.roboco.sandbox.server.config;

import io.roboco.sandbox.request.DurationText;
import java.time.Duration;

/** Parses configuration durations: a positive whole number and a unit, {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 30d}. */
public final class Durations {

    private Durations() {}

    public static Duration parse(String setting, String value) {
        if (value != null && value.trim().matches("0+(ms|s|m|h|d)")) {
            throw new ConfigException(setting + "='" + value + "' must be longer than zero");
        }
        return DurationText.parse(value)
                .orElseThrow(() -> new ConfigException(setting + "='" + value + "' is not a positive duration; "
                        + "use a whole number and a unit, e.g. 500ms, 30s, 5m, 1h, 30d"));
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
