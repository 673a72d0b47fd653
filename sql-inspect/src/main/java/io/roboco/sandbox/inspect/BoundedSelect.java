package io.roboco.sandbox.inspect;

import io.roboco.sandbox.sql.SqlSyntaxException;
import io.roboco.sandbox.sql.SqlToken;
import io.roboco.sandbox.sql.SqlTokenizer;
import java.util.List;
import java.util.Set;

/**
 * How a query's rows reach this process under a fixed budget: the query is wrapped, unchanged, as a subquery
 * whose every output column comes back as two, {@code left(value::text, cellChars)} and the byte size of the whole
 * value, so the database cuts a long value before it is sent; and rows are fetched through a cursor a few at a time,
 * as many as fit {@code fetchBytes} at the widest a row can be. So one call never holds more than about
 * {@code fetchBytes} of rows in the driver, whatever the rows hold (a 20 MB value costs the cut, not 20 MB).
 */
final class BoundedSelect {
    /** Bytes a UTF-8 character can take. */
    private static final int CHAR_BYTES = 4;
    /** Per value: its size column (an int8 as text) and the protocol's length words. */
    private static final int VALUE_OVERHEAD = 32;

    private static final int MIN_CELL_CHARS = 16;
    private static final Set<String> QUERY_STARTS = Set.of("select", "with", "values");

    private BoundedSelect() {}

    /** Whether {@code sql} is a query that can stand as a subquery (SELECT, WITH, VALUES); EXPLAIN and the rest are not. */
    static boolean wraps(String sql) {
        try {
            List<SqlToken> tokens = SqlTokenizer.tokenize(sql);
            return !tokens.isEmpty()
                    && (tokens.get(0).is("(")
                            || QUERY_STARTS.contains(tokens.get(0).value()));
        } catch (SqlSyntaxException e) {
            return false;
        }
    }

    /** Characters kept of each value: the cell cap, less when there are so many columns that a row would pass the budget. */
    static int cellChars(int columns, int maxCellBytes, int fetchBytes) {
        int perValue = fetchBytes / Math.max(1, columns) - VALUE_OVERHEAD;
        return Math.max(MIN_CELL_CHARS, Math.min(maxCellBytes, perValue / CHAR_BYTES));
    }

    /** Rows per fetch: as many of the widest possible row as fit the budget, at least one, at most {@code maxRows}. */
    static int fetchSize(int columns, int cellChars, int fetchBytes, int maxRows) {
        long row = (long) Math.max(1, columns) * ((long) cellChars * CHAR_BYTES + VALUE_OVERHEAD);
        return (int) Math.max(1, Math.min(maxRows, fetchBytes / row));
    }

    /** {@code sql} without its final ';' (the guard allows one, followed by nothing but whitespace). */
    static String body(String sql) {
        String s = sql.stripTrailing();
        return s.endsWith(";") ? s.substring(0, s.length() - 1) : s;
    }

    /**
     * The wrapped form of a query with {@code columns} output columns: {@code SELECT left(q.c1::text, n),
     * octet_length(q.c1::text), … FROM (SELECT * FROM (<body>) AS q0(c1, …) OFFSET 0) AS q}. The body is enclosed on
     * lines of its own, so a trailing {@code --} comment in it ends before the closing parenthesis.
     */
    static String sql(String body, int columns, int cellChars) {
        StringBuilder select = new StringBuilder("SELECT ");
        StringBuilder names = new StringBuilder();
        for (int c = 1; c <= columns; c++) {
            if (c > 1) {
                select.append(", ");
                names.append(", ");
            }
            select.append("pg_catalog.left(q.c")
                    .append(c)
                    .append("::pg_catalog.text, ")
                    .append(cellChars)
                    .append("), ")
                    .append("pg_catalog.octet_length(q.c")
                    .append(c)
                    .append("::pg_catalog.text)");
            names.append('c').append(c);
        }
        // OFFSET 0 keeps the query a subquery of its own, so each value is computed once, not once per use above.
        return select.append(" FROM (SELECT * FROM (\n")
                .append(body)
                .append("\n) AS q0(")
                .append(names)
                .append(") OFFSET 0) AS q")
                .toString();
    }
}
