package io.roboco.sandbox.settings;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes as people and Docker write them: {@code 512m}, {@code 1g}, {@code 768MB}, {@code 2GiB}, or a plain number of
 * bytes. Units are binary ({@code k} = 1024), as in {@code docker run --memory}. Printed back in the largest whole
 * unit ({@code 512m}, {@code 1g}).
 */
public final class ByteSize {
    private static final Pattern SIZE = Pattern.compile("(\\d{1,12})\\s*([kmg]?)(i?b)?", Pattern.CASE_INSENSITIVE);

    private ByteSize() {}

    /** The size in bytes; {@link IllegalArgumentException} with an example when {@code text} is not a size. */
    public static long parse(String text) {
        Matcher m = SIZE.matcher(text == null ? "" : text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "'" + (text == null ? "" : text) + "' is not a size; use e.g. 512m or 1g");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> n << 10;
            case "m" -> n << 20;
            case "g" -> n << 30;
            default -> n;
        };
    }

    public static String format(long bytes) {
        if (bytes > 0 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "g";
        }
        if (bytes > 0 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + "m";
        }
        if (bytes > 0 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + "k";
        }
        return Long.toString(bytes);
    }

    /** CPUs as Docker's {@code --cpus} takes them ({@code 0.5}, {@code 2}) from nano-CPUs. */
    public static String formatCpus(long nanoCpus) {
        double cpus = nanoCpus / 1e9;
        return cpus == Math.rint(cpus) ? Long.toString((long) cpus) : Double.toString(cpus);
    }
}
