package io.roboco.sandbox.inspect.plan;

import java.util.List;
import java.util.Map;

/**
 * An {@code EXPLAIN (FORMAT JSON)} plan, summarised.
 *
 * @param totalCost     the root node's total cost (planner units)
 * @param estimatedRows the root node's estimated rows
 * @param nodeCount     nodes in the plan tree
 * @param nodeTypes     how many nodes of each type ({@code Seq Scan}, {@code Hash Join}, …)
 * @param seqScans      every sequential scan, with its filter
 * @param warnings      what looks costly, one sentence each
 * @param planningMs    planning time; only with ANALYZE
 * @param executionMs   execution time; only with ANALYZE
 */
public record PlanSummary(
        double totalCost,
        double estimatedRows,
        int nodeCount,
        Map<String, Integer> nodeTypes,
        List<SeqScan> seqScans,
        List<String> warnings,
        Double planningMs,
        Double executionMs) {

    /**
     * @param schema        the relation's schema (plans made with VERBOSE name it; null otherwise)
     * @param filter        the scan's filter as Postgres prints it, or null
     * @param estimatedRows rows the planner expects the scan to return
     * @param actualRows    rows it returned (ANALYZE only)
     * @param rowsRemoved   rows its filter removed (ANALYZE only)
     */
    public record SeqScan(
            String schema,
            String relation,
            String alias,
            String filter,
            double estimatedRows,
            Double actualRows,
            Double rowsRemoved) {}
}
