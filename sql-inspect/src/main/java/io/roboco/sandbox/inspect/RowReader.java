package io.roboco.sandbox.inspect;

import io.roboco.sandbox.inspect.sql.ColumnPatterns;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.postgresql.PGResultSetMetaData;

/**
 * Reads a result set under the policy's caps: at most {@code maxRows} rows (one more is fetched only to know
 * there are more), text values cut to {@code maxCellBytes}, rows stopped before their JSON passes
 * {@code maxResultBytes}; columns whose name or origin (the table column Postgres reports behind an output
 * column, through subqueries, CTEs and renames) matches a denied pattern come back as {@value #REDACTED}.
 */
final class RowReader {
    static final String REDACTED = "[REDACTED]";
    private static final Set<String> INTEGERS = Set.of("int2", "int4", "int8", "oid");
    private static final Set<String> FLOATS = Set.of("float4", "float8");

    /** A text value that was cut: its row and column (0-based) and its size before the cut. */
    record Cut(int row, int column, int bytes) {}

    /**
     * @param truncatedBy {@code rows}, {@code bytes} or null
     * @param redacted    names of the output columns returned as [REDACTED]
     */
    record Rows(
            List<String> columns,
            List<List<Object>> rows,
            List<String> redacted,
            String truncatedBy,
            long bytes,
            List<Cut> cuts) {
        boolean truncated() {
            return truncatedBy != null;
        }
    }

    private final int maxRows;
    private final int maxResultBytes;
    private final int maxCellBytes;
    private final ColumnPatterns denied;

    RowReader(int maxRows, int maxResultBytes, int maxCellBytes, ColumnPatterns denied) {
        this.maxRows = maxRows;
        this.maxResultBytes = maxResultBytes;
        this.maxCellBytes = maxCellBytes;
        this.denied = denied;
    }

    static RowReader of(InspectionPolicy policy) {
        return new RowReader(policy.maxRows(), policy.maxResultBytes(), policy.maxCellBytes(), policy.deniedColumns());
    }

    int maxRows() {
        return maxRows;
    }

    Rows none() {
        return new Rows(List.of(), List.of(), List.of(), null, 0, List.of());
    }

    /** The output columns of a statement: labels, type names and origins (the table column behind each, or null). */
    record Columns(List<String> labels, List<String> types, List<String> origins) {
        static Columns of(ResultSetMetaData md) throws SQLException {
            PGResultSetMetaData origin = md.unwrap(PGResultSetMetaData.class);
            int n = md.getColumnCount();
            List<String> labels = new ArrayList<>(n);
            List<String> types = new ArrayList<>(n);
            List<String> origins = new ArrayList<>(n);
            for (int c = 1; c <= n; c++) {
                labels.add(md.getColumnLabel(c));
                types.add(md.getColumnTypeName(c));
                origins.add(origin.getBaseColumnName(c));
            }
            return new Columns(labels, types, origins);
        }

        int size() {
            return labels.size();
        }
    }

    /** Rows of a statement sent as it is: every value read whole by the driver (EXPLAIN output, our own queries). */
    Rows read(ResultSet rs) throws SQLException {
        return read(rs, Columns.of(rs.getMetaData()), false);
    }

    /**
     * Rows of {@link BoundedSelect}'s form of a statement: two result columns per output column, the value cut by
     * the database and the byte size of the whole value, so nothing larger than the cut ever reaches this process.
     */
    Rows readBounded(ResultSet rs, Columns columns) throws SQLException {
        return read(rs, columns, true);
    }

    private Rows read(ResultSet rs, Columns columns, boolean bounded) throws SQLException {
        int n = columns.size();
        boolean[] redact = new boolean[n];
        List<String> redacted = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            String label = columns.labels().get(c);
            redact[c] = denied.denies(label) || denied.denies(columns.origins().get(c));
            if (redact[c]) {
                redacted.add(label);
            }
        }
        List<List<Object>> rows = new ArrayList<>();
        List<Cut> cuts = new ArrayList<>();
        long bytes = InspectJson.write(columns.labels()).getBytes(StandardCharsets.UTF_8).length + 2L;
        String truncatedBy = null;
        while (rs.next()) {
            if (rows.size() == maxRows) {
                truncatedBy = "rows";
                break;
            }
            List<Object> row = new ArrayList<>(n);
            for (int c = 0; c < n; c++) {
                String type = columns.types().get(c);
                row.add(
                        redact[c]
                                ? REDACTED
                                : bounded
                                        ? boundedCell(rs, c, type, rows.size(), cuts)
                                        : cell(rs, c + 1, type, rows.size(), cuts));
            }
            long rowBytes = InspectJson.write(row).getBytes(StandardCharsets.UTF_8).length + 1L;
            if (bytes + rowBytes > maxResultBytes) {
                truncatedBy = "bytes";
                cuts.removeIf(cut -> cut.row() == rows.size());
                break;
            }
            bytes += rowBytes;
            rows.add(row);
        }
        return new Rows(columns.labels(), rows, redacted, truncatedBy, bytes, cuts);
    }

    /** Column {@code c} (0-based) of a bounded row: its cut text at 2c+1, the whole value's byte size at 2c+2. */
    private Object boundedCell(ResultSet rs, int c, String type, int row, List<Cut> cuts) throws SQLException {
        String text = rs.getString(2 * c + 1);
        if (text == null) {
            return null;
        }
        long whole = rs.getLong(2 * c + 2);
        if (whole <= maxCellBytes) {
            Object typed = typed(text, type);
            if (typed != null) {
                return typed;
            }
        }
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        if (whole <= maxCellBytes && utf8.length <= maxCellBytes) {
            return text;
        }
        cuts.add(new Cut(row, c, (int) Math.min(Integer.MAX_VALUE, Math.max(whole, utf8.length))));
        return cutToBytes(text, maxCellBytes);
    }

    /** A number or boolean from its text form, by the column's type; null when it is text (or does not read as its type). */
    private static Object typed(String text, String type) {
        try {
            if ("bool".equals(type)) {
                return "true".equals(text) || "t".equals(text);
            }
            if (INTEGERS.contains(type)) {
                return Long.parseLong(text);
            }
            if (FLOATS.contains(type)) {
                double d = Double.parseDouble(text);
                return Double.isFinite(d) ? d : null;
            }
            if ("numeric".equals(type)) {
                return new BigDecimal(text);
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return null;
    }

    private Object cell(ResultSet rs, int c, String type, int row, List<Cut> cuts) throws SQLException {
        String text = rs.getString(c);
        if (text == null) {
            return null;
        }
        try {
            if ("bool".equals(type)) {
                return rs.getBoolean(c);
            }
            if (INTEGERS.contains(type)) {
                return rs.getLong(c);
            }
            if (FLOATS.contains(type)) {
                double d = rs.getDouble(c);
                return Double.isFinite(d) ? d : text;
            }
            if ("numeric".equals(type)) {
                return new BigDecimal(text);
            }
        } catch (SQLException | NumberFormatException e) {
            return text;
        }
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        if (utf8.length <= maxCellBytes) {
            return text;
        }
        cuts.add(new Cut(row, c - 1, utf8.length));
        return cutToBytes(text, maxCellBytes);
    }

    /** The longest prefix of {@code text} whose UTF-8 form fits {@code max} bytes (never half a character). */
    static String cutToBytes(String text, int max) {
        int bytes = 0;
        int k = 0;
        while (k < text.length()) {
            int cp = text.codePointAt(k);
            int len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + len > max) {
                break;
            }
            bytes += len;
            k += Character.charCount(cp);
        }
        return text.substring(0, k);
    }
}
