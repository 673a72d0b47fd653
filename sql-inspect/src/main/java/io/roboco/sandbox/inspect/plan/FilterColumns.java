package io.roboco.sandbox.inspect.plan;

import io.roboco.sandbox.sql.SqlSyntaxException;
import io.roboco.sandbox.sql.SqlToken;
import io.roboco.sandbox.sql.SqlTokenizer;
import io.roboco.sandbox.sql.TokenKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The columns a plan's {@code Filter} compares, and how: {@code (o.customer_id = 42)},
 * {@code ((status)::text = 'open'::text)}, {@code (placed_at >= '2024-01-01'::date)}, {@code (name ~~ '%x%'::text)},
 * {@code (x IS NULL)}. Read with the SQL tokenizer; names that are not the scanned table's columns are
 * dropped by the caller.
 */
final class FilterColumns {
    enum Kind {
        EQUALITY,
        RANGE,
        PATTERN
    }

    record Predicate(String column, Kind kind) {}

    private static final Set<String> RANGE = Set.of("<", ">", "<=", ">=");
    private static final Set<String> PATTERN = Set.of("~~", "~~*");
    private static final Set<String> NOT_TYPE_WORDS =
            Set.of("and", "or", "not", "is", "in", "like", "ilike", "between");

    private FilterColumns() {}

    static List<Predicate> of(String filter) {
        List<Predicate> out = new ArrayList<>();
        if (filter == null) {
            return out;
        }
        List<SqlToken> t;
        try {
            t = SqlTokenizer.tokenize(filter);
        } catch (SqlSyntaxException e) {
            return out;
        }
        for (int k = 0; k < t.size(); k++) {
            SqlToken tok = t.get(k);
            if (!tok.isName()
                    || (k > 0 && t.get(k - 1).is("::"))
                    || (k + 1 < t.size()
                            && (t.get(k + 1).is("(") || t.get(k + 1).is(".")))) {
                continue;
            }
            int j = skipCasts(t, k + 1);
            if (j >= t.size()) {
                continue;
            }
            SqlToken op = t.get(j);
            if (op.is("=")) {
                out.add(new Predicate(tok.value(), Kind.EQUALITY));
            } else if (op.kind() == TokenKind.OPERATOR && RANGE.contains(op.text())) {
                out.add(new Predicate(tok.value(), Kind.RANGE));
            } else if (op.kind() == TokenKind.OPERATOR && PATTERN.contains(op.text())) {
                out.add(new Predicate(tok.value(), Kind.PATTERN));
            } else if (op.isWord("is") && j + 1 < t.size() && t.get(j + 1).isWord("null")) {
                out.add(new Predicate(tok.value(), Kind.EQUALITY));
            }
        }
        return out;
    }

    /** Past {@code )} and {@code ::type} (with modifiers, arrays and multi-word names) that follow a column. */
    private static int skipCasts(List<SqlToken> t, int j) {
        while (j < t.size()) {
            if (t.get(j).is(")")) {
                j++;
            } else if (t.get(j).is("::")) {
                j++;
                while (j < t.size()
                        && (t.get(j).isName()
                                        && !NOT_TYPE_WORDS.contains(t.get(j).value())
                                || t.get(j).is("[")
                                || t.get(j).is("]")
                                || t.get(j).is("."))) {
                    j++;
                    if (j < t.size() && t.get(j).is("(")) {
                        while (j < t.size() && !t.get(j).is(")")) {
                            j++;
                        }
                        j++;
                    }
                }
            } else {
                return j;
            }
        }
        return j;
    }
}
