package io.roboco.sandbox.inspect;

import java.util.List;

/**
 * {@code run_readonly_query}: rows of one statement under the row and byte caps, applied before anything is buffered: the
 * statement runs as written inside a wrapper that cuts values in the database, and at most maxRows + 1 rows are fetched,
 * a few at a time (see {@code BoundedSelect}).
 *
 * @param truncatedBy {@code rows} (more than maxRows), {@code bytes} (the next row would pass maxResultBytes), or null
 * @param bytes       JSON bytes of the rows returned
 * @param cutCells    text values cut to the cell cap: row and column index (0-based) and their original size
 */
public record QueryResult(
        Untrusted<Rows> data,
        int rowCount,
        boolean truncated,
        String truncatedBy,
        int maxRows,
        long bytes,
        List<CutCell> cutCells,
        int redactedColumns,
        long elapsedMs)
        implements InspectionResult {

    /** @param redacted output columns returned as [REDACTED] (their name or origin matches a denied pattern) */
    public record Rows(List<String> columns, List<List<Object>> rows, List<String> redacted) {}

    public record CutCell(int row, int column, int bytes) {}

    @Override
    public String summary() {
        StringBuilder s = new StringBuilder(rowCount + (rowCount == 1 ? " row" : " rows"));
        if (truncated) {
            s.append(" (truncated by ")
                    .append(truncatedBy)
                    .append("rows".equals(truncatedBy) ? " at " + maxRows : "")
                    .append(")");
        }
        if (redactedColumns > 0) {
            s.append("; ")
                    .append(redactedColumns)
                    .append(redactedColumns == 1 ? " column" : " columns")
                    .append(" redacted");
        }
        if (!cutCells.isEmpty()) {
            s.append("; ").append(cutCells.size()).append(" long values cut");
        }
        return s.append("; ").append(elapsedMs).append(" ms").toString();
    }
}
