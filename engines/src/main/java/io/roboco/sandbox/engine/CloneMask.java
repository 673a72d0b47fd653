package io.roboco.sandbox.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What a clone seed does to the rows it copies ({@link Seeds#cloneFrom}): a {@link MaskRule} per column, keyed
 * {@code schema.table.column}, applied in the copy stream (on the source's side of it, so an original value never
 * enters the sandbox), and the denied-column patterns: a cloned column whose name matches one and has no rule refuses
 * the seed, naming it (fail closed). The patterns are globs matched case-insensitively against whole column names, the
 * same list inspection hides ({@link #DENIED_DEFAULTS}).
 */
public record CloneMask(Map<String, MaskRule> rules, List<String> deniedColumns) {
    /** pgscout's denied column names, the list inspection uses ({@code ColumnPatterns.PGSCOUT_DEFAULTS}). */
    public static final List<String> DENIED_DEFAULTS =
            List.of("*password*", "passwd", "ssn", "*secret*", "*api_key*", "*token*", "card_number", "cvv");

    /** The longest list of rules a clone takes. */
    public static final int MAX_RULES = 256;

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]{0,62}");

    public CloneMask {
        rules = Collections.unmodifiableMap(new TreeMap<>(rules));
        deniedColumns = List.copyOf(deniedColumns);
    }

    /** {@code rules} with the default denied patterns. */
    public static CloneMask of(Map<String, MaskRule> rules) {
        return new CloneMask(rules, DENIED_DEFAULTS);
    }

    /** No rules, the default denied patterns. */
    public static CloneMask none() {
        return of(Map.of());
    }

    /** The rule of column {@code schema.table.column}, if any. */
    public Optional<MaskRule> rule(String schema, String table, String column) {
        return Optional.ofNullable(rules.get(schema + "." + table + "." + column));
    }

    /** The first denied pattern the column name {@code column} matches, if any. */
    public Optional<String> deniedBy(String column) {
        String lower = column.toLowerCase(Locale.ROOT);
        for (String glob : deniedColumns) {
            if (glob(glob).matcher(lower).matches()) {
                return Optional.of(glob);
            }
        }
        return Optional.empty();
    }

    /**
     * A rule's key as a project writes it, {@code table.column} (schema {@code public}) or {@code schema.table.column},
     * as {@code schema.table.column}.
     *
     * @throws IllegalArgumentException when it is not two or three identifiers joined by dots
     */
    public static String columnKey(String key) {
        String[] parts = key == null ? new String[0] : key.split("\\.", -1);
        if (parts.length < 2 || parts.length > 3) {
            throw new IllegalArgumentException("a rule's column is table.column or schema.table.column");
        }
        List<String> out = new ArrayList<>();
        if (parts.length == 2) {
            out.add("public");
        }
        for (String p : parts) {
            if (!IDENTIFIER.matcher(p).matches()) {
                throw new IllegalArgumentException(
                        "'" + Printable.of(p)
                                + "' is not a column, table or schema name (letters, digits, _ and $, starting with a letter or _)");
            }
            out.add(p);
        }
        return String.join(".", out);
    }

    private static Pattern glob(String glob) {
        StringBuilder regex = new StringBuilder();
        for (char c : glob.toLowerCase(Locale.ROOT).toCharArray()) {
            if (c == '*') {
                regex.append(".*");
            } else if (c == '?') {
                regex.append('.');
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }
}
