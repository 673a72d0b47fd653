package io.roboco.sandbox.inspect.sql;

import io.roboco.sandbox.sql.SqlToken;
import io.roboco.sandbox.sql.TokenKind;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** The token-level rules of {@link QueryGuard}, applied to one statement after its EXPLAIN prefix. */
final class TokenRules {
    private final List<SqlToken> t;
    private final int body;
    private final ColumnPatterns deniedColumns;
    private final Map<String, Violation> found;

    TokenRules(List<SqlToken> statement, int body, ColumnPatterns deniedColumns, Map<String, Violation> found) {
        this.t = statement;
        this.body = body;
        this.deniedColumns = deniedColumns;
        this.found = found;
    }

    void apply() {
        StatementShape shape = StatementShape.of(t, body);
        boolean shapeKnown = shape.violations().stream().noneMatch(v -> v.rule().equals(Violation.SYNTAX));
        shape.violations().forEach(v -> QueryGuard.add(found, v.rule(), v.reason()));
        for (int k = body; k < t.size(); k++) {
            SqlToken tok = t.get(k);
            if (tok.kind() == TokenKind.PARAMETER) {
                QueryGuard.add(
                        found,
                        Violation.PARAMETER,
                        "parameters such as " + tok.text() + " are not supported; write the values into the statement");
            }
            if (tok.kind() == TokenKind.WORD && !afterDotOrAs(k)) {
                word(k, tok);
            }
            if (tok.isName()) {
                name(k, tok, shape, shapeKnown);
            }
            if (shapeKnown
                    && k > 0
                    && t.get(k - 1).is(".")
                    && shape.isExpandingStar(k)
                    && shape.inOutermostSelectList(k)
                    && !shape.isBareListItem(k)) {
                QueryGuard.add(
                        found,
                        Violation.WHOLE_ROW,
                        "'" + starItem(k) + "' is one operand of an expression here (a cast, an operator, "
                                + "a comparison), where Postgres reads it as one whole-row value carrying every column past redaction. "
                                + "Use it alone as a select-list item (SELECT " + starItem(k)
                                + ", …) or name the columns you need");
            }
            if (shapeKnown
                    && shape.isRowQualifier(k)
                    && DeniedNames.ROW_FUNCTIONS.contains(t.get(k + 2).value())) {
                String call = t.get(k + 2).value() + "(" + tok.text() + ")";
                QueryGuard.add(
                        found,
                        Violation.WHOLE_ROW,
                        "'" + tok.text() + "." + t.get(k + 2).text() + "' is attribute notation for "
                                + call
                                + ", which converts the whole row, denied columns included; name the columns you need, e.g. "
                                + "json_build_object('id', " + tok.text() + ".id)");
            }
            if (shapeKnown && shape.isExpandingStar(k) && !shape.inOutermostSelectList(k)) {
                QueryGuard.add(
                        found,
                        Violation.STAR_PLACEMENT,
                        "* (or t.*) is accepted only in the outermost SELECT list of a query without "
                                + "UNION, INTERSECT or EXCEPT, where denied columns are redacted; elsewhere it would carry them out of sight. "
                                + "Name the columns you need");
            }
        }
    }

    private void word(int k, SqlToken tok) {
        String w = tok.value();
        if (w.equals("into")) {
            QueryGuard.add(found, Violation.SELECT_INTO, "SELECT … INTO creates a table; remove INTO and its target");
        } else if (w.equals("for") && k + 1 < t.size() && isLockStrength(t.get(k + 1))) {
            QueryGuard.add(
                    found,
                    Violation.ROW_LOCK,
                    "FOR UPDATE / FOR SHARE (and FOR NO KEY UPDATE / FOR KEY SHARE) take row locks; "
                            + "remove the locking clause");
        } else if (w.equals("table")) {
            QueryGuard.add(
                    found,
                    Violation.TABLE_COMMAND,
                    "TABLE x stands for SELECT * FROM x, which is only expanded (and redacted) "
                            + "in the outermost select list; write SELECT with the columns you need");
        } else if (DeniedNames.WRITE_WORDS.contains(w) && !partOfRowLock(k)) {
            String upper = w.toUpperCase(Locale.ROOT);
            QueryGuard.add(
                    found,
                    Violation.WRITE_KEYWORD,
                    upper + " is a write, DDL, lock or transaction keyword and is refused anywhere in an "
                            + "inspection statement (data-modifying CTEs included). If it is a column or table name, quote it (\""
                            + w
                            + "\") or qualify it (t." + w + ")");
        }
    }

    private void name(int k, SqlToken tok, StatementShape shape, boolean shapeKnown) {
        Optional<DeniedNames.Denial> denied = DeniedNames.reason(tok.value());
        if (denied.isPresent()) {
            QueryGuard.add(
                    found,
                    denied.get().rule(),
                    tok.value() + " is refused (" + denied.get().reason() + "); leave it out");
        }
        if (!isColumnPosition(k, shape)) {
            return;
        }
        Optional<String> pattern = deniedColumns.match(tok.value());
        if (pattern.isPresent()) {
            QueryGuard.add(
                    found,
                    Violation.DENIED_COLUMN,
                    "'" + tok.value() + "' matches the denied-column pattern '" + pattern.get()
                            + "'; denied columns are never read through inspection. Leave it out (SELECT * in the outermost select list "
                            + "shows it as [REDACTED])");
        }
        if (shapeKnown && shape.isWholeRowReference(k)) {
            QueryGuard.add(
                    found,
                    Violation.WHOLE_ROW,
                    "'" + tok.text() + "' is a whole-row reference to a table: a row value carries "
                            + "every column, denied ones included, past redaction. Name the columns you need ("
                            + tok.text() + ".id, …), "
                            + "e.g. json_build_object('id', " + tok.text() + ".id)");
        }
    }

    /** Not a FROM item's name, a qualifier (x.), a function name (f(), or a type name (::t). */
    private boolean isColumnPosition(int k, StatementShape shape) {
        if (shape.isDefinition(k)) {
            return false;
        }
        if (k + 1 < t.size() && (t.get(k + 1).is(".") || t.get(k + 1).is("("))) {
            return false;
        }
        return !(k > 0 && t.get(k - 1).is("::"));
    }

    /** The {@code u.*} (or {@code *}) that ends at {@code k}, as written. */
    private String starItem(int k) {
        return k >= 2 && t.get(k - 1).is(".") ? t.get(k - 2).text() + ".*" : "*";
    }

    private boolean afterDotOrAs(int k) {
        return k > 0 && (t.get(k - 1).is(".") || t.get(k - 1).isWord("as"));
    }

    private static boolean isLockStrength(SqlToken next) {
        return next.isWord("update") || next.isWord("share") || next.isWord("no") || next.isWord("key");
    }

    /** UPDATE in FOR UPDATE / FOR NO KEY UPDATE, reported as a row lock rather than a write. */
    private boolean partOfRowLock(int k) {
        if (!t.get(k).isWord("update")) {
            return false;
        }
        return (k > 0 && t.get(k - 1).isWord("for"))
                || (k > 2
                        && t.get(k - 1).isWord("key")
                        && t.get(k - 2).isWord("no")
                        && t.get(k - 3).isWord("for"));
    }
}
