package io.roboco.sandbox.inspect.plan;

import io.roboco.sandbox.inspect.sql.ColumnPatterns;
import io.roboco.sandbox.inspect.sql.Violation;
import io.roboco.sandbox.sql.SqlSyntaxException;
import io.roboco.sandbox.sql.SqlToken;
import io.roboco.sandbox.sql.SqlTokenizer;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The check under the guard for denied columns: reads the statement as Postgres resolved it, from
 * {@code EXPLAIN (VERBOSE, FORMAT JSON)} (planned, never executed), where every column reference is qualified and every
 * whole-row value is printed {@code alias.*}, whatever the spelling that produced it ({@code u.text},
 * {@code u.*::text}, a function of the agent's own taking the row, a view). Refused:
 * <ul>
 *   <li>any whole-row value ({@code alias.*} in any expression of any plan node);</li>
 *   <li>a denied column used inside an expression, a filter or a sort key; a denied column passed through bare as an
 *       output column is allowed, because the reader redacts it by its origin ({@code SELECT *}).</li>
 * </ul>
 */
public final class ResolvedColumns {
    private static final String OUTPUT = "Output";

    private ResolvedColumns() {}

    /** The first violation in {@code plan} (the parsed EXPLAIN JSON), if any. */
    public static Optional<Violation> check(Object plan, ColumnPatterns denied) {
        return walk(plan, null, denied);
    }

    private static Optional<Violation> walk(Object node, String key, ColumnPatterns denied) {
        if (node instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                Optional<Violation> v = walk(e.getValue(), String.valueOf(e.getKey()), denied);
                if (v.isPresent()) {
                    return v;
                }
            }
        } else if (node instanceof List<?> list) {
            for (Object item : list) {
                Optional<Violation> v = walk(item, key, denied);
                if (v.isPresent()) {
                    return v;
                }
            }
        } else if (node instanceof String expression) {
            return expression(expression, OUTPUT.equals(key), denied);
        }
        return Optional.empty();
    }

    private static Optional<Violation> expression(String text, boolean output, ColumnPatterns denied) {
        List<SqlToken> t;
        try {
            t = SqlTokenizer.tokenize(text);
        } catch (SqlSyntaxException e) {
            return Optional.empty(); // a label, not an expression
        }
        for (int k = 2; k < t.size(); k++) {
            if (t.get(k).is("*") && t.get(k - 1).is(".") && t.get(k - 2).isName()) {
                return Optional.of(new Violation(
                        Violation.WHOLE_ROW,
                        "the statement uses '" + t.get(k - 2).text() + ".*' as one value as Postgres "
                                + "resolves it (a whole row converted or cast, however it was spelt: attribute notation such as "
                                + t.get(k - 2).text() + ".to_jsonb or "
                                + t.get(k - 2).text() + ".text, a cast of a row, a function taking the row), "
                                + "which carries every column past redaction. Name the columns you need"));
            }
        }
        boolean bare = output && isBareReference(t);
        for (int k = 2; k < t.size(); k++) {
            if (t.get(k).isName()
                    && t.get(k - 1).is(".")
                    && t.get(k - 2).isName()
                    && !(k + 1 < t.size() && t.get(k + 1).is("("))) {
                Optional<String> pattern = denied.match(t.get(k).value());
                if (pattern.isPresent() && !bare) {
                    return Optional.of(new Violation(
                            Violation.DENIED_COLUMN,
                            "as Postgres resolves the statement, it computes with '"
                                    + t.get(k - 2).text() + "." + t.get(k).text()
                                    + "', which matches the denied-column pattern '" + pattern.get()
                                    + "' (through a view, a sort by position or a conversion); denied columns are only ever shown as [REDACTED] "
                                    + "columns of the outermost select list. Leave it out"));
                }
            }
        }
        return Optional.empty();
    }

    /** {@code a.b} or {@code s.a.b}: one column passed through unchanged. */
    private static boolean isBareReference(List<SqlToken> t) {
        if (t.size() != 3 && t.size() != 5) {
            return false;
        }
        for (int k = 0; k < t.size(); k++) {
            boolean ok = k % 2 == 0 ? t.get(k).isName() : t.get(k).is(".");
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
