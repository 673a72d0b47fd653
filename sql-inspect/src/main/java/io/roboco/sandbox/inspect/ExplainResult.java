package io.roboco.sandbox.inspect;

import io.roboco.sandbox.inspect.plan.PlanSummary;

/**
 * {@code explain_query}: {@code EXPLAIN (FORMAT JSON)} summarised; the raw plan only on request.
 *
 * @param rawPlanOmitted why the raw plan asked for is absent (over the byte cap), or null
 */
public record ExplainResult(
        Untrusted<Report> data,
        double totalCost,
        int nodeCount,
        int sequentialScans,
        boolean analyzed,
        String rawPlanOmitted)
        implements InspectionResult {

    /** @param rawPlan the parsed plan JSON, or null when not asked for */
    public record Report(PlanSummary summary, Object rawPlan) {}

    @Override
    public String summary() {
        return "total cost " + Math.round(totalCost) + ", " + nodeCount + " nodes, " + sequentialScans
                + " sequential scans" + (analyzed ? " (executed: EXPLAIN ANALYZE)" : "");
    }
}
