package io.roboco.sandbox.inspect;

import java.util.List;

/** {@code list_schemas}: the schemas outside the system ones ({@code pg_*}, {@code information_schema}). */
public record SchemaList(Untrusted<List<Schema>> data, int count, boolean truncated) implements InspectionResult {

    public record Schema(String name, String owner) {}

    @Override
    public String summary() {
        return count + (count == 1 ? " schema" : " schemas") + (truncated ? " (truncated at " + count + ")" : "");
    }
}
