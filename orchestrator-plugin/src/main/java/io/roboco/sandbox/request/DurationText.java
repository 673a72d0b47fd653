package io.roboco.sandbox.request;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as settings and requests write them: a positive whole number and a unit, {@code 500ms},
 * {@code 90s}, {@code 30m}, {@code 4h}, {@code 30d}.
 */
public final class DurationText {
    private static final Pattern SHAPE = Pattern.compile("([0-9]{1,9})(ms|s|m|h|d)");
    public static final String RULE = "a whole number and a unit, e.g. 90s, 30m, 4h, 30d";

    private DurationText() {}

    /** The duration, or empty when {@code text} is not one (or is zero). */
    public static Optional<Duration> parse(String text) {
        Matcher m = text == null ? null : SHAPE.matcher(text.trim());
        if (m == null || !m.matches()) {
            return Optional.empty();
        }
        long n = Long.parseLong(m.group(1));
        Duration d = switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
        return d.isZero() ? Optional.empty() : Optional.of(d);
    }

    /** A request field: a {@link BadRequest} naming {@code field} when it is not a positive duration. */
    public static Duration require(String field, Object raw) {
        if (raw instanceof String s) {
            Optional<Duration> d = parse(s);
            if (d.isPresent()) {
                return d.get();
            }
        }
        throw new BadRequest(
                "'" + field + "' must be a duration: " + RULE + "; got '" + Names.printable(String.valueOf(raw)) + "'");
    }

    /** {@code 30s}, {@code 2m}, {@code 4h}, {@code 30d}, {@code 1500ms}: the shortest exact form. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms != 0 && ms % 86_400_000 == 0) {
            return ms / 86_400_000 + "d";
        }
        if (ms != 0 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms != 0 && ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
