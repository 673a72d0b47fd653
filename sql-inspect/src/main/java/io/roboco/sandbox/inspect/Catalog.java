package io.roboco.sandbox.inspect;

import io.roboco.sandbox.inspect.plan.IndexAdvisor;
import io.roboco.sandbox.inspect.sql.ColumnPatterns;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * The catalog queries behind list_schemas, list_tables, describe_table and the index advisor: our own SQL,
 * with parameters, every function and table qualified with {@code pg_catalog.} so a role's search_path
 * cannot redirect them. They run in the same read-only transaction as everything else.
 */
final class Catalog {
    private static final String USER_SCHEMA = "n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'";
    private static final String RELKINDS = "c.relkind IN ('r', 'p', 'v', 'm', 'f')";

    /** A relation found by name. */
    record Relation(long oid, String schema, String name, String kind) {}

    /** Schemas or relations listed per call; one more is fetched to know there are more. */
    static final int MAX_LISTED = 10_000;
    /** Indexes and foreign keys described per table. */
    static final int MAX_PER_TABLE = 500;
    /** Characters kept of a definition (a default, an index or constraint definition), cut by the database. */
    static final int MAX_DEFINITION_CHARS = 1024;

    private Catalog() {}

    /** {@code expression} cut by the database to {@link #MAX_DEFINITION_CHARS}, marked with '…' when cut. */
    private static String cut(String expression) {
        return "(SELECT CASE WHEN pg_catalog.length(d) OPERATOR(pg_catalog.>) " + MAX_DEFINITION_CHARS
                + " THEN pg_catalog.concat(pg_catalog.left(d, " + MAX_DEFINITION_CHARS
                + "), '…') ELSE d END FROM (SELECT " + expression + " AS d) b)";
    }

    static List<SchemaList.Schema> schemas(ReadOnlySession s) throws SQLException {
        List<SchemaList.Schema> out = new ArrayList<>();
        try (PreparedStatement ps = s.prepare(
                        "SELECT n.nspname, pg_catalog.pg_get_userbyid(n.nspowner) FROM pg_catalog.pg_namespace n WHERE "
                                + USER_SCHEMA + " ORDER BY 1 LIMIT " + (MAX_LISTED + 1));
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new SchemaList.Schema(rs.getString(1), rs.getString(2)));
            }
        }
        return out;
    }

    static boolean schemaExists(ReadOnlySession s, String schema) throws SQLException {
        try (PreparedStatement ps = s.prepare("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = ?")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Relations in {@code schema}, or in every user schema when it is null. */
    static List<TableList.Table> tables(ReadOnlySession s, String schema) throws SQLException {
        List<TableList.Table> out = new ArrayList<>();
        String where = schema == null ? USER_SCHEMA : "n.nspname = ?";
        try (PreparedStatement ps = s.prepare("SELECT n.nspname, c.relname, c.relkind::text, c.reltuples::float8, "
                + "CASE WHEN c.relkind IN ('v', 'f') THEN NULL ELSE pg_catalog.pg_total_relation_size(c.oid) END "
                + "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE "
                + RELKINDS + " AND " + where
                + " ORDER BY 1, 2 LIMIT " + (MAX_LISTED + 1))) {
            if (schema != null) {
                ps.setString(1, schema);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String kind = kind(rs.getString(3));
                    double tuples = rs.getDouble(4);
                    Long estimate = kind.equals("view") || kind.equals("foreign table") || tuples < 0
                            ? null
                            : Math.round(tuples);
                    long bytes = rs.getLong(5);
                    out.add(new TableList.Table(
                            rs.getString(1), rs.getString(2), kind, estimate, rs.wasNull() ? null : bytes));
                }
            }
        }
        return out;
    }

    static Optional<Relation> relation(ReadOnlySession s, String schema, String name) throws SQLException {
        try (PreparedStatement ps =
                s.prepare("SELECT c.oid, c.relkind::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
                        + "ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ? AND " + RELKINDS)) {
            ps.setString(1, schema);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(new Relation(rs.getLong(1), schema, name, kind(rs.getString(2))))
                        : Optional.empty();
            }
        }
    }

    static List<TableDescription.Column> columns(ReadOnlySession s, long oid, ColumnPatterns denied)
            throws SQLException {
        List<TableDescription.Column> out = new ArrayList<>();
        try (PreparedStatement ps =
                s.prepare("SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), NOT a.attnotnull, "
                        + cut("pg_catalog.pg_get_expr(d.adbin, d.adrelid)")
                        + ", a.attidentity::text, a.attgenerated::text "
                        + "FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
                        + "WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    boolean isDenied = denied.denies(name);
                    String identity = switch (rs.getString(5)) {
                        case "a" -> "always";
                        case "d" -> "by default";
                        default -> null;
                    };
                    String generated = rs.getString(6);
                    String defaultValue = rs.getString(4);
                    out.add(new TableDescription.Column(
                            name,
                            rs.getString(2),
                            rs.getBoolean(3),
                            isDenied && defaultValue != null ? RowReader.REDACTED : defaultValue,
                            identity,
                            generated != null && !generated.isEmpty(),
                            isDenied));
                }
            }
        }
        return out;
    }

    static List<TableDescription.Index> indexes(ReadOnlySession s, long oid) throws SQLException {
        List<TableDescription.Index> out = new ArrayList<>();
        try (PreparedStatement ps =
                s.prepare("SELECT i.relname, " + cut("pg_catalog.pg_get_indexdef(x.indexrelid)") + ", "
                        + "ARRAY(SELECT a.attname FROM pg_catalog.unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) JOIN pg_catalog.pg_attribute a "
                        + "ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.ord), x.indisunique, x.indisprimary "
                        + "FROM pg_catalog.pg_index x JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = ? ORDER BY 1 LIMIT "
                        + MAX_PER_TABLE)) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new TableDescription.Index(
                            rs.getString(1),
                            rs.getString(2),
                            strings(rs.getArray(3)),
                            rs.getBoolean(4),
                            rs.getBoolean(5)));
                }
            }
        }
        return out;
    }

    static List<TableDescription.ForeignKey> foreignKeys(ReadOnlySession s, long oid) throws SQLException {
        List<TableDescription.ForeignKey> out = new ArrayList<>();
        String names =
                "ARRAY(SELECT a.attname FROM pg_catalog.unnest(c.%1$s) WITH ORDINALITY AS k(attnum, ord) JOIN pg_catalog.pg_attribute a "
                        + "ON a.attrelid = c.%2$s AND a.attnum = k.attnum ORDER BY k.ord)";
        try (PreparedStatement ps = s.prepare(
                "SELECT c.conname, " + String.format(names, "conkey", "conrelid") + ", rn.nspname, rc.relname, "
                        + String.format(names, "confkey", "confrelid") + ", "
                        + cut("pg_catalog.pg_get_constraintdef(c.oid)") + " "
                        + "FROM pg_catalog.pg_constraint c JOIN pg_catalog.pg_class rc ON rc.oid = c.confrelid "
                        + "JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace WHERE c.conrelid = ? AND c.contype = 'f' ORDER BY 1 LIMIT "
                        + MAX_PER_TABLE)) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new TableDescription.ForeignKey(
                            rs.getString(1),
                            strings(rs.getArray(2)),
                            rs.getString(3),
                            rs.getString(4),
                            strings(rs.getArray(5)),
                            rs.getString(6)));
                }
            }
        }
        return out;
    }

    /** What the index advisor needs about a scanned relation: its columns, its indexes' key columns, its row estimate. */
    static Optional<IndexAdvisor.RelationFacts> facts(ReadOnlySession s, String schema, String name)
            throws SQLException {
        Optional<Relation> found = relation(s, schema, name);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        long oid = found.get().oid();
        LinkedHashSet<String> columns = new LinkedHashSet<>();
        for (TableDescription.Column c : columns(s, oid, ColumnPatterns.none())) {
            columns.add(c.name());
        }
        List<IndexAdvisor.ExistingIndex> indexes = new ArrayList<>();
        for (TableDescription.Index ix : indexes(s, oid)) {
            indexes.add(new IndexAdvisor.ExistingIndex(ix.name(), ix.columns()));
        }
        Double estimate = null;
        try (PreparedStatement ps = s.prepare("SELECT reltuples::float8 FROM pg_catalog.pg_class WHERE oid = ?")) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && rs.getDouble(1) >= 0) {
                    estimate = rs.getDouble(1);
                }
            }
        }
        return Optional.of(new IndexAdvisor.RelationFacts(schema, name, columns, indexes, estimate));
    }

    private static List<String> strings(Array array) throws SQLException {
        return array == null ? List.of() : Arrays.asList((String[]) array.getArray());
    }

    private static String kind(String relkind) {
        return switch (relkind) {
            case "r" -> "table";
            case "p" -> "partitioned table";
            case "v" -> "view";
            case "m" -> "materialized view";
            case "f" -> "foreign table";
            default -> relkind;
        };
    }
}
