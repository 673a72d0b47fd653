package io.roboco.sandbox.inspect;

import java.util.List;

/** {@code list_tables}: tables, views and materialized views, with the planner's row estimates. */
public record TableList(Untrusted<List<Table>> data, int count, boolean truncated) implements InspectionResult {

    /**
     * @param kind          {@code table}, {@code partitioned table}, {@code view}, {@code materialized view} or {@code foreign table}
     * @param estimatedRows pg_class.reltuples; null for views and for tables never analysed
     * @param bytes         total size on disk with indexes and TOAST; null for views
     */
    public record Table(String schema, String name, String kind, Long estimatedRows, Long bytes) {}

    @Override
    public String summary() {
        return count
                + (count == 1 ? " relation" : " relations")
                + (truncated ? " (truncated at " + count + "; name a schema to narrow)" : "");
    }
}
