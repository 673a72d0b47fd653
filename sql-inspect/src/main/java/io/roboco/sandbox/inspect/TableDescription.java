package io.roboco.sandbox.inspect;

import java.util.List;

/** {@code describe_table}: columns, indexes and foreign keys of one table or view; denied columns are flagged. */
public record TableDescription(Untrusted<Detail> data, int columns, int deniedColumns) implements InspectionResult {

    public record Detail(
            String schema,
            String name,
            String kind,
            List<Column> columns,
            List<Index> indexes,
            List<ForeignKey> foreignKeys) {}

    /**
     * @param defaultValue the default expression; [REDACTED] on a denied column (a default can hold a literal secret)
     * @param identity     {@code always}, {@code by default} or null
     * @param denied       the name matches a denied pattern: inspection never returns its values
     */
    public record Column(
            String name,
            String type,
            boolean nullable,
            String defaultValue,
            String identity,
            boolean generated,
            boolean denied) {}

    public record Index(String name, String definition, List<String> columns, boolean unique, boolean primary) {}

    public record ForeignKey(
            String name,
            List<String> columns,
            String referencedSchema,
            String referencedTable,
            List<String> referencedColumns,
            String definition) {}

    @Override
    public String summary() {
        return columns + " columns" + (deniedColumns > 0 ? " (" + deniedColumns + " denied: never returned)" : "");
    }
}
