package io.roboco.sandbox.engine;

import java.util.regex.Pattern;

/**
 * The syntax of one kind of name, written once: its regular expression, its longest length and the words a refusal
 * uses. A value type holds one ({@code AgentSlug.SHAPE}); HTTP parsing, the MCP tools' JSON Schemas ({@link #jsonPattern},
 * {@link #maxLength}), forms and stores all ask it, so a name means the same everywhere.
 *
 * <p>The expression is a plain one (character classes, a counted repeat, a literal prefix, one lookahead): the same text
 * is a Java {@link Pattern} and an ECMA-262 one, as JSON Schema's {@code pattern} wants.
 */
public final class NameShape {
    private final String what;
    private final String regex;
    private final int maxLength;
    private final String rule;
    private final Pattern pattern;

    private NameShape(String what, String regex, int maxLength, String rule) {
        this.what = what;
        this.regex = regex;
        this.maxLength = maxLength;
        this.rule = rule;
        this.pattern = Pattern.compile(regex);
    }

    /**
     * A shape: {@code what} names it in refusals ("agent slug"), {@code regex} is matched in full, {@code maxLength} is
     * the longest name it matches (for JSON Schema's {@code maxLength}), {@code rule} says it in words.
     */
    public static NameShape of(String what, String regex, int maxLength, String rule) {
        return new NameShape(what, regex, maxLength, rule);
    }

    /** A shape whose rule, in refusals, is its regular expression ("… is malformed; expected &lt;regex&gt;"). */
    public static NameShape of(String what, String regex, int maxLength) {
        return new NameShape(what, regex, maxLength, regex);
    }

    /** The same syntax under another name ("snapshot name" has a checkpoint name's shape). */
    public NameShape as(String otherWhat) {
        return new NameShape(otherWhat, regex, maxLength, rule);
    }

    /** This shape behind a fixed {@code prefix} ({@code job:} before an agent slug's shape). */
    public NameShape prefixed(String otherWhat, String prefix, String otherRule) {
        return new NameShape(otherWhat, prefix + regex, prefix.length() + maxLength, otherRule);
    }

    /** This shape, with or without {@code prefix} in front. */
    public NameShape optionallyPrefixed(String otherWhat, String prefix, String otherRule) {
        return new NameShape(otherWhat, "(?:" + prefix + ")?" + regex, prefix.length() + maxLength, otherRule);
    }

    /** This shape except the one name {@code reserved} (plain letters), which means something else. */
    public NameShape except(String reserved) {
        return new NameShape(what, "(?!" + reserved + "$)" + regex, maxLength, rule + ", not '" + reserved + "'");
    }

    public boolean matches(String name) {
        return name != null
                && name.length() <= maxLength
                && pattern.matcher(name).matches();
    }

    /** What it is called in refusals: "agent slug", "template name". */
    public String what() {
        return what;
    }

    /** The regular expression, matched in full. */
    public String regex() {
        return regex;
    }

    /** The same, anchored: a JSON Schema {@code pattern} (which matches anywhere unless anchored). */
    public String jsonPattern() {
        return "^" + regex + "$";
    }

    public int maxLength() {
        return maxLength;
    }

    /** The shape in words, for refusals and documentation. */
    public String rule() {
        return rule;
    }

    /** "agent slug 'Dev 1' is malformed; expected …": the refusal of {@code name}, echoed safely ({@link Printable}). */
    public String malformed(String name) {
        return what + " '" + Printable.of(name) + "' is malformed; expected " + rule;
    }

    /**
     * "'template' must be a template name (1-30 of …); got 'X'": the refusal of {@code raw} given as argument {@code field}
     * (it may not even be a string).
     */
    public String mustBe(String field, Object raw) {
        return "'" + field + "' must be a " + what + " (" + rule + ")"
                + (raw instanceof String s ? "; got '" + Printable.of(s) + "'" : "");
    }

    @Override
    public String toString() {
        return what + " " + regex;
    }
}
