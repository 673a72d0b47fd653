package io.roboco.sandbox.engine;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a clone rewrites one column's values on their way from the source ({@link CloneMask}): {@code null},
 * {@code hash} (a salted digest, the same value within one clone, so joins on it still match), {@code fake_email}
 * ({@code user_<digest>@example.invalid}), {@code keep_last(n)} (every character but the last n as {@code *}; a value
 * of n characters or fewer is all {@code *}) or a constant ({@code {"constant": "text"}}). A null value stays null
 * under every rule but a constant.
 */
public sealed interface MaskRule {
    /** The largest n of {@code keep_last(n)}. */
    int MAX_KEEP = 64;
    /** The longest constant. */
    int MAX_CONSTANT = 1_000;

    String RULES = "null, hash, fake_email, keep_last(n) with n 0-" + MAX_KEEP + ", or {\"constant\": \"text\"}";

    /** Whether the rule only applies to a text column (the digest and the character rules). */
    boolean needsText();

    /** As the project's settings write it: {@code "hash"}, {@code "keep_last(4)"}, or the constant's JSON object. */
    Object json();

    record Null() implements MaskRule {
        @Override
        public boolean needsText() {
            return false;
        }

        @Override
        public Object json() {
            return "null";
        }
    }

    record Hash() implements MaskRule {
        @Override
        public boolean needsText() {
            return true;
        }

        @Override
        public Object json() {
            return "hash";
        }
    }

    record FakeEmail() implements MaskRule {
        @Override
        public boolean needsText() {
            return true;
        }

        @Override
        public Object json() {
            return "fake_email";
        }
    }

    record KeepLast(int n) implements MaskRule {
        public KeepLast {
            if (n < 0 || n > MAX_KEEP) {
                throw new IllegalArgumentException("keep_last(n) takes n from 0 to " + MAX_KEEP + ", not " + n);
            }
        }

        @Override
        public boolean needsText() {
            return true;
        }

        @Override
        public Object json() {
            return "keep_last(" + n + ")";
        }
    }

    record Constant(String value) implements MaskRule {
        public Constant {
            if (value == null || value.length() > MAX_CONSTANT || value.indexOf('\0') >= 0) {
                throw new IllegalArgumentException(
                        "a constant is a string of at most " + MAX_CONSTANT + " characters without NUL");
            }
        }

        @Override
        public boolean needsText() {
            return false;
        }

        @Override
        public Object json() {
            return Map.of("constant", value);
        }
    }

    Pattern KEEP_LAST = Pattern.compile("keep_last\\(\\s*(\\d{1,3})\\s*\\)");

    /**
     * A rule as the settings write it ({@link #json}).
     *
     * @throws IllegalArgumentException naming what is wrong and the rules there are
     */
    static MaskRule parse(Object raw) {
        if (raw instanceof Map<?, ?> m) {
            if (m.size() == 1 && m.get("constant") instanceof String value) {
                return new Constant(value);
            }
            throw new IllegalArgumentException("a constant rule is {\"constant\": \"text\"}; rules: " + RULES);
        }
        if (!(raw instanceof String s)) {
            throw new IllegalArgumentException("a rule is a string or {\"constant\": \"text\"}; rules: " + RULES);
        }
        switch (s) {
            case "null":
                return new Null();
            case "hash":
                return new Hash();
            case "fake_email":
                return new FakeEmail();
            default:
                Matcher keep = KEEP_LAST.matcher(s);
                if (keep.matches()) {
                    return new KeepLast(Integer.parseInt(keep.group(1)));
                }
                throw new IllegalArgumentException("unknown rule '" + Printable.of(s) + "'; rules: " + RULES);
        }
    }
}
