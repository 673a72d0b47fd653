package io.roboco.sandbox.inspect;

import io.roboco.sandbox.inspect.sql.ColumnPatterns;
import io.roboco.sandbox.inspect.sql.QueryGuard;
import java.time.Duration;
import java.util.List;

/**
 * What inspection allows, per project. Validated when built: a contradictory or out-of-range value is an
 * error naming the setting, never clamped to something more permissive.
 *
 * @param deniedColumns       column-name globs never read (default pgscout's list)
 * @param allowExplainAnalyze whether EXPLAIN ANALYZE, which executes the statement, is allowed (default false)
 * @param maxRows             rows returned per query, 1–10000 (default 200, pgscout's)
 * @param maxResultBytes      JSON bytes of rows returned per query, 1 KiB–16 MiB (default 64 KiB)
 * @param maxCellBytes        bytes kept of one text value, 64 B–maxResultBytes (default 4 KiB)
 * @param statementTimeout    local statement_timeout of each call, 100 ms–5 min (default 5 s, pgscout's)
 * @param maxSqlChars         longest statement accepted, 100–1000000 characters (default 20000)
 * @param maxFetchBytes       most bytes of rows the driver may hold for one query, 64 KiB–256 MiB (default 4 MiB): the
 *                            database cuts values and rows are fetched a few at a time to stay within it
 *                            ({@code ROBOCO_SANDBOX_MCP_FETCH_BYTES})
 */
public record InspectionPolicy(
        ColumnPatterns deniedColumns,
        boolean allowExplainAnalyze,
        int maxRows,
        int maxResultBytes,
        int maxCellBytes,
        Duration statementTimeout,
        int maxSqlChars,
        int maxFetchBytes) {
    public static final int DEFAULT_FETCH_BYTES = 4 << 20;
    public static final int MIN_FETCH_BYTES = 64 << 10;
    public static final int MAX_FETCH_BYTES = 256 << 20;

    public InspectionPolicy {
        if (deniedColumns == null) {
            throw new IllegalArgumentException(
                    "inspection setting denied_columns is required (ColumnPatterns.none() to deny nothing)");
        }
        range("max_rows", maxRows, 1, 10_000);
        range("max_result_bytes", maxResultBytes, 1024, 16 << 20);
        range("max_cell_bytes", maxCellBytes, 64, maxResultBytes);
        range("max_sql_chars", maxSqlChars, 100, 1_000_000);
        range("fetch_bytes", maxFetchBytes, MIN_FETCH_BYTES, MAX_FETCH_BYTES);
        if (statementTimeout == null
                || statementTimeout.toMillis() < 100
                || statementTimeout.compareTo(Duration.ofMinutes(5)) > 0) {
            throw new IllegalArgumentException(
                    "inspection setting statement_timeout must be between 100ms and 5m, got " + statementTimeout);
        }
    }

    public static InspectionPolicy defaults() {
        return new InspectionPolicy(
                ColumnPatterns.defaults(),
                false,
                200,
                64 * 1024,
                4096,
                Duration.ofSeconds(5),
                20_000,
                DEFAULT_FETCH_BYTES);
    }

    public InspectionPolicy withDeniedColumns(List<String> globs) {
        return new InspectionPolicy(
                ColumnPatterns.of(globs),
                allowExplainAnalyze,
                maxRows,
                maxResultBytes,
                maxCellBytes,
                statementTimeout,
                maxSqlChars,
                maxFetchBytes);
    }

    public InspectionPolicy withExplainAnalyze(boolean allow) {
        return new InspectionPolicy(
                deniedColumns,
                allow,
                maxRows,
                maxResultBytes,
                maxCellBytes,
                statementTimeout,
                maxSqlChars,
                maxFetchBytes);
    }

    public InspectionPolicy withMaxRows(int rows) {
        return new InspectionPolicy(
                deniedColumns,
                allowExplainAnalyze,
                rows,
                maxResultBytes,
                maxCellBytes,
                statementTimeout,
                maxSqlChars,
                maxFetchBytes);
    }

    public InspectionPolicy withBytes(int resultBytes, int cellBytes) {
        return new InspectionPolicy(
                deniedColumns,
                allowExplainAnalyze,
                maxRows,
                resultBytes,
                cellBytes,
                statementTimeout,
                maxSqlChars,
                maxFetchBytes);
    }

    public InspectionPolicy withStatementTimeout(Duration timeout) {
        return new InspectionPolicy(
                deniedColumns,
                allowExplainAnalyze,
                maxRows,
                maxResultBytes,
                maxCellBytes,
                timeout,
                maxSqlChars,
                maxFetchBytes);
    }

    public InspectionPolicy withFetchBytes(int bytes) {
        return new InspectionPolicy(
                deniedColumns,
                allowExplainAnalyze,
                maxRows,
                maxResultBytes,
                maxCellBytes,
                statementTimeout,
                maxSqlChars,
                bytes);
    }

    QueryGuard guard() {
        return new QueryGuard(deniedColumns, allowExplainAnalyze, maxSqlChars);
    }

    private static void range(String setting, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    "inspection setting " + setting + " must be between " + min + " and " + max + ", got " + value);
        }
    }
}
