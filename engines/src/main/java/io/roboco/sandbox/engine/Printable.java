package io.roboco.sandbox.engine;

/** Echoes caller-supplied names in messages safely: bounded length, control and non-ASCII characters escaped. */
public final class Printable {
    private static final int MAX = 64;

    private Printable() {}

    /** {@code null} → "null"; at most 64 characters (then "…"); anything outside printable ASCII as {@code \\uXXXX}. */
    public static String of(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && i < MAX; i++) {
            char c = s.charAt(i);
            sb.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return s.length() > MAX ? sb + "…" : sb.toString();
    }
}
