package io.roboco.sandbox.inspect.sql;

import io.roboco.sandbox.sql.SqlToken;
import io.roboco.sandbox.sql.TokenKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The structure of one tokenized statement, as far as denied columns need it: paren depth, which names
 * are bound to tables in FROM clauses, where {@code *} expands, and which names are used as whole rows.
 * It is not a parser: where it cannot tell, it reports (and the guard refuses) rather than guesses.
 */
final class StatementShape {
    private static final Set<String> FROM_END = Set.of(
            "where",
            "group",
            "having",
            "window",
            "order",
            "limit",
            "offset",
            "fetch",
            "for",
            "union",
            "intersect",
            "except",
            "returning",
            "into");
    private static final Set<String> JOIN_WORDS =
            Set.of("natural", "inner", "left", "right", "full", "outer", "cross", "join");
    private static final Set<String> NOT_AN_ALIAS = union(
            FROM_END, JOIN_WORDS, Set.of("on", "using", "lateral", "tablesample", "with", "as", "repeatable", "only"));
    private static final Set<String> SELECT_LIST_END = union(FROM_END, Set.of("from"));

    private final List<SqlToken> t;
    private final int bodyStart;
    private final int[] depth;
    private final int[] match;
    /** Token positions that name a FROM item or define a CTE (never a column, never a whole row). */
    private final Set<Integer> definitions = new HashSet<>();
    /** Names that, unqualified, denote a whole row of a table or view: an alias, or the table's own name when it has none. */
    private final Set<String> tableRowNames = new HashSet<>();

    private final List<Violation> violations = new ArrayList<>();

    private StatementShape(List<SqlToken> tokens, int bodyStart) {
        this.t = tokens;
        this.bodyStart = bodyStart;
        this.depth = new int[tokens.size()];
        this.match = new int[tokens.size()];
    }

    /** Analyses {@code tokens} (one statement, without its trailing ';'); the statement body starts at {@code bodyStart}. */
    static StatementShape of(List<SqlToken> tokens, int bodyStart) {
        StatementShape shape = new StatementShape(tokens, bodyStart);
        if (shape.nest()) {
            shape.cteNames();
            shape.fromClauses();
        }
        return shape;
    }

    List<Violation> violations() {
        return violations;
    }

    boolean isDefinition(int k) {
        return definitions.contains(k);
    }

    // --- nesting -------------------------------------------------------------------------------

    private boolean nest() {
        List<Integer> open = new ArrayList<>();
        for (int k = 0; k < t.size(); k++) {
            SqlToken tok = t.get(k);
            depth[k] = open.size();
            match[k] = -1;
            if (tok.is("(") || tok.is("[")) {
                open.add(k);
            } else if (tok.is(")") || tok.is("]")) {
                String expected = tok.is(")") ? "(" : "[";
                if (open.isEmpty() || !t.get(open.get(open.size() - 1)).is(expected)) {
                    violations.add(new Violation(
                            Violation.SYNTAX,
                            "unbalanced '" + tok.text() + "' at offset " + tok.start()
                                    + "; fix the parentheses or brackets"));
                    return false;
                }
                int o = open.remove(open.size() - 1);
                match[o] = k;
                match[k] = o;
                depth[k] = open.size();
            }
        }
        if (!open.isEmpty()) {
            violations.add(new Violation(
                    Violation.SYNTAX,
                    "'" + t.get(open.get(0)).text() + "' at offset "
                            + t.get(open.get(0)).start() + " is never closed; fix the parentheses or brackets"));
            return false;
        }
        return true;
    }

    // --- WITH name [(cols)] AS [NOT] [MATERIALIZED] ( … ) ------------------------------------

    private void cteNames() {
        for (int k = 0; k < t.size(); k++) {
            if (!t.get(k).isWord("with")) {
                continue;
            }
            int j = k + 1;
            if (j < t.size() && t.get(j).isWord("recursive")) {
                j++;
            }
            while (j < t.size() && t.get(j).isName()) {
                int name = j++;
                if (j < t.size() && t.get(j).is("(")) {
                    j = match[j] + 1;
                }
                if (j >= t.size() || !t.get(j).isWord("as")) {
                    break;
                }
                j++;
                while (j < t.size() && (t.get(j).isWord("not") || t.get(j).isWord("materialized"))) {
                    j++;
                }
                if (j >= t.size() || !t.get(j).is("(")) {
                    break;
                }
                definitions.add(name);
                j = match[j] + 1;
                if (j < t.size() && t.get(j).is(",")) {
                    j++;
                } else {
                    break;
                }
            }
        }
    }

    // --- FROM lists ------------------------------------------------------------------------------

    private void fromClauses() {
        for (int k = 0; k < t.size(); k++) {
            if (t.get(k).isWord("from") && startsFromClause(k)) {
                fromList(k + 1, depth[k]);
            }
        }
    }

    /** A FROM clause, not {@code IS DISTINCT FROM} or {@code extract(x FROM y)}: a SELECT precedes it in the same group. */
    private boolean startsFromClause(int k) {
        if (k > 0 && t.get(k - 1).isWord("distinct")) {
            return false;
        }
        for (int j = k - 1; j >= 0 && depth[j] >= depth[k]; j--) {
            if (depth[j] == depth[k] && t.get(j).isWord("select")) {
                return true;
            }
        }
        return false;
    }

    /** Items separated by ',' or joins, from {@code j} until the clause ends at depth {@code d}. */
    private void fromList(int j, int d) {
        j = fromItem(j, d);
        while (j < t.size() && depth[j] == d && !t.get(j).is(")") && !t.get(j).is("]")) {
            SqlToken tok = t.get(j);
            if (tok.kind() == TokenKind.WORD && FROM_END.contains(tok.value())) {
                return;
            }
            if (tok.is(",") || tok.isWord("join")) {
                j = fromItem(j + 1, d);
            } else if (tok.is("(")) {
                j = match[j] + 1;
            } else {
                j++;
            }
        }
    }

    private int fromItem(int j, int d) {
        while (j < t.size() && (t.get(j).isWord("lateral") || t.get(j).isWord("only"))) {
            j++;
        }
        if (j >= t.size()) {
            return j;
        }
        if (t.get(j).is("(")) {
            int close = match[j];
            SqlToken first = t.get(j + 1);
            if (!(first.isWord("select") || first.isWord("with") || first.isWord("values"))) {
                fromList(j + 1, d + 1);
            }
            return alias(close + 1, false, -1);
        }
        if (t.get(j).isWord("rows")
                && j + 2 < t.size()
                && t.get(j + 1).isWord("from")
                && t.get(j + 2).is("(")) {
            return alias(ordinality(match[j + 2] + 1), false, -1);
        }
        if (!t.get(j).isName()) {
            return j;
        }
        int nameStart = j;
        while (j + 2 < t.size() && t.get(j + 1).is(".") && t.get(j + 2).isName()) {
            j += 2;
        }
        int last = j;
        j++;
        if (j < t.size() && t.get(j).is("(")) {
            return alias(ordinality(match[j] + 1), false, -1);
        }
        for (int p = nameStart; p <= last; p++) {
            definitions.add(p);
        }
        if (j < t.size() && t.get(j).is("*")) {
            j++;
        }
        if (j < t.size() && t.get(j).isWord("tablesample")) {
            j += 2;
            if (j < t.size() && t.get(j).is("(")) {
                j = match[j] + 1;
            }
            if (j + 1 < t.size()
                    && t.get(j).isWord("repeatable")
                    && t.get(j + 1).is("(")) {
                j = match[j + 1] + 1;
            }
        }
        return alias(j, true, last);
    }

    private int ordinality(int j) {
        if (j + 1 < t.size() && t.get(j).isWord("with") && t.get(j + 1).isWord("ordinality")) {
            return j + 2;
        }
        return j;
    }

    /** [AS] alias [(columns)] after a FROM item; {@code table} when the item is a named table or view at {@code nameAt}. */
    private int alias(int j, boolean table, int nameAt) {
        int aliasAt = -1;
        if (j < t.size()
                && t.get(j).isWord("as")
                && j + 1 < t.size()
                && t.get(j + 1).isName()) {
            aliasAt = j + 1;
        } else if (j < t.size()
                && t.get(j).isName()
                && !(t.get(j).kind() == TokenKind.WORD
                        && NOT_AN_ALIAS.contains(t.get(j).value()))) {
            aliasAt = j;
        }
        if (aliasAt >= 0) {
            definitions.add(aliasAt);
            j = aliasAt + 1;
        }
        if (table) {
            tableRowNames.add((aliasAt >= 0 ? t.get(aliasAt) : t.get(nameAt)).value());
        }
        if (aliasAt >= 0 && j < t.size() && t.get(j).is("(")) {
            if (table) {
                violations.add(new Violation(
                        Violation.COLUMN_ALIAS_LIST,
                        "'" + t.get(nameAt).text() + " " + t.get(aliasAt).text()
                                + "(…)' renames the table's columns, which hides denied columns from the check; drop the column list "
                                + "and alias columns in the select list instead ("
                                + t.get(aliasAt).text() + ".id AS a)"));
            }
            j = match[j] + 1;
        }
        return j;
    }

    // --- '*' and whole rows --------------------------------------------------------------------

    /** Whether {@code *} at {@code k} expands columns (rather than multiplying, or counting as in count(*)). */
    boolean isExpandingStar(int k) {
        if (!t.get(k).is("*") || k == 0) {
            return false;
        }
        SqlToken prev = t.get(k - 1);
        if (prev.is("(") && k + 1 < t.size() && t.get(k + 1).is(")")) {
            return false;
        }
        if (prev.is(".") || prev.is(",") || prev.isWord("select") || prev.isWord("distinct") || prev.isWord("all")) {
            return true;
        }
        // SELECT DISTINCT ON (a) *
        return prev.is(")")
                && match[k - 1] > 1
                && t.get(match[k - 1] - 1).isWord("on")
                && t.get(match[k - 1] - 2).isWord("distinct");
    }

    /** In the outermost select list of a statement without a top-level UNION / INTERSECT / EXCEPT. */
    boolean inOutermostSelectList(int k) {
        int select = -1;
        for (int j = bodyStart; j < t.size(); j++) {
            if (depth[j] != 0) {
                continue;
            }
            SqlToken tok = t.get(j);
            if (tok.isWord("union") || tok.isWord("intersect") || tok.isWord("except")) {
                return false;
            }
            if (select < 0 && tok.isWord("select")) {
                select = j;
            }
        }
        if (select < 0 || depth[k] != 0 || k < select) {
            return false;
        }
        for (int j = select + 1; j < k; j++) {
            if (depth[j] == 0
                    && t.get(j).kind() == TokenKind.WORD
                    && SELECT_LIST_END.contains(t.get(j).value())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the expanding {@code *} at {@code k} stands alone as a select-list item ({@code SELECT u.*, id}), rather
     * than being one operand of an expression ({@code u.*::text}, {@code 'x' || u.*}, {@code u.* IS NULL}), where
     * Postgres reads {@code u.*} as one whole-row value.
     */
    boolean isBareListItem(int k) {
        int start = k;
        if (k > 0 && t.get(k - 1).is(".")) {
            start = k - 1;
            while (start > 0
                    && t.get(start - 1).isName()
                    && start - 2 >= 0
                    && t.get(start - 2).is(".")) {
                start -= 2;
            }
            start = start > 0 && t.get(start - 1).isName() ? start - 1 : start;
        }
        boolean opens = start > 0 && listItemStart(start - 1);
        SqlToken next = k + 1 < t.size() ? t.get(k + 1) : null;
        boolean closes = next == null
                || next.is(",")
                || next.is(")")
                || (next.kind() == TokenKind.WORD && SELECT_LIST_END.contains(next.value()));
        return opens && closes;
    }

    private boolean listItemStart(int p) {
        SqlToken prev = t.get(p);
        if (prev.is(",") || prev.isWord("select") || prev.isWord("distinct") || prev.isWord("all")) {
            return true;
        }
        return prev.is(")")
                && match[p] > 1
                && t.get(match[p] - 1).isWord("on")
                && t.get(match[p] - 2).isWord("distinct");
    }

    /**
     * Whether the name at {@code k} denotes a table's row and is followed by {@code .name}: {@code u.to_jsonb} is
     * attribute notation for {@code to_jsonb(u)} as much as {@code u.id} is a column.
     */
    boolean isRowQualifier(int k) {
        SqlToken tok = t.get(k);
        return tok.isName()
                && !definitions.contains(k)
                && tableRowNames.contains(tok.value())
                && k + 2 < t.size()
                && t.get(k + 1).is(".")
                && t.get(k + 2).isName();
    }

    /** A name used as the value of a whole table row: {@code SELECT u FROM users u}, {@code row_to_json(u)}. */
    boolean isWholeRowReference(int k) {
        SqlToken tok = t.get(k);
        if (!tok.isName() || definitions.contains(k) || !tableRowNames.contains(tok.value())) {
            return false;
        }
        SqlToken prev = k > 0 ? t.get(k - 1) : null;
        SqlToken next = k + 1 < t.size() ? t.get(k + 1) : null;
        if (prev != null && (prev.is(".") || prev.is("::") || prev.isWord("as"))) {
            return false;
        }
        return next == null || !(next.is(".") || next.is("("));
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new HashSet<>(a);
        all.addAll(b);
        return Set.copyOf(all);
    }

    private static Set<String> union(Set<String> a, Set<String> b, Set<String> c) {
        return union(union(a, b), c);
    }
}
