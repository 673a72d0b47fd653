package io.roboco.sandbox.inspect;

import io.roboco.sandbox.inspect.plan.IndexAdvisor;

/** {@code suggest_indexes}: CREATE INDEX CONCURRENTLY statements from the plan's filtered sequential scans; never executed. */
public record IndexSuggestions(Untrusted<IndexAdvisor.Advice> data, int count, int sequentialScans)
        implements InspectionResult {

    @Override
    public String summary() {
        return count + (count == 1 ? " suggestion" : " suggestions") + " from " + sequentialScans
                + " sequential scans (not executed)";
    }
}
