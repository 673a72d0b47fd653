package io.roboco.sandbox.engine.postgres.schema;

import io.roboco.sandbox.engine.SchemaDigest;
import io.roboco.sandbox.engine.SchemaObject;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a {@link SchemaDigest} of the user schemas of the database a connection is on: every schema except
 * {@code pg_catalog}, {@code information_schema}, {@code pg_toast} / {@code pg_temp_*} and those an extension made.
 * Objects an extension owns (PostGIS's {@code spatial_ref_sys}, pgvector's functions) are left out: the extension
 * itself is recorded instead. Read-only catalog queries in one read-only transaction; works on PostgreSQL 12+.
 */
public final class SchemaReader {
    private static final String NOT_EXTENSION_MEMBER =
            " AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = '%s'::regclass"
                    + " AND d.objid = %s AND d.deptype = 'e')";

    private SchemaReader() {}

    public static SchemaDigest read(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        boolean readOnly = connection.isReadOnly();
        try {
            connection.setAutoCommit(false);
            connection.setReadOnly(true);
            try (Statement s = connection.createStatement()) {
                s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            }
            String version = single(connection, "SHOW server_version");
            List<String> schemas = schemas(connection);
            Array names = connection.createArrayOf("text", schemas.toArray());
            List<SchemaObject> objects = new ArrayList<>();
            extensions(connection, objects);
            tables(connection, names, objects);
            columns(connection, names, objects);
            constraints(connection, names, objects);
            indexes(connection, names, objects);
            views(connection, names, objects);
            functions(connection, names, objects);
            sequences(connection, names, objects);
            connection.commit();
            return SchemaDigest.of(version, schemas, objects);
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
            connection.setReadOnly(readOnly);
        }
    }

    private static List<String> schemas(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT n.nspname FROM pg_namespace n WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')"
                                + " AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'"
                                + String.format(NOT_EXTENSION_MEMBER, "pg_namespace", "n.oid") + " ORDER BY 1")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static void extensions(Connection c, List<SchemaObject> out) throws SQLException {
        query(
                c,
                "SELECT e.extname, e.extversion, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace",
                null,
                rs -> out.add(SchemaObject.of(
                        "extension", rs.getString(1), attrs("version", rs.getString(2), "schema", rs.getString(3)))));
    }

    private static void tables(Connection c, Array schemas, List<SchemaObject> out) throws SQLException {
        query(
                c,
                "SELECT n.nspname, c.relname, c.relkind, c.relpersistence, c.relrowsecurity FROM pg_class c"
                        + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'f') AND n.nspname = ANY (?)"
                        + String.format(NOT_EXTENSION_MEMBER, "pg_class", "c.oid"),
                schemas,
                rs -> out.add(SchemaObject.of(
                        "table",
                        rs.getString(1) + "." + rs.getString(2),
                        attrs(
                                "kind",
                                relkind(rs.getString(3)),
                                "persistence",
                                rs.getString(4).equals("u") ? "unlogged" : null,
                                "row_security",
                                rs.getBoolean(5) ? "on" : null))));
    }

    private static void columns(Connection c, Array schemas, List<SchemaObject> out) throws SQLException {
        query(
                c,
                "SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,"
                        + " " + bounded("pg_get_expr(ad.adbin, ad.adrelid)") + ", a.attidentity, a.attgenerated,"
                        + " CASE WHEN a.attcollation <> t.typcollation THEN co.collname END"
                        + " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum"
                        + " LEFT JOIN pg_collation co ON co.oid = a.attcollation"
                        + " WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'f') AND n.nspname = ANY (?)"
                        + String.format(NOT_EXTENSION_MEMBER, "pg_class", "c.oid"),
                schemas,
                rs -> {
                    String g = rs.getString(8);
                    boolean generated = g != null && !g.isBlank() && !g.equals("\0");
                    out.add(SchemaObject.of(
                            "column",
                            rs.getString(1) + "." + rs.getString(2) + "." + rs.getString(3),
                            attrs(
                                    "type",
                                    rs.getString(4),
                                    "nullable",
                                    rs.getBoolean(5) ? "no" : "yes",
                                    generated ? "generated" : "default",
                                    rs.getString(6),
                                    "identity",
                                    identity(rs.getString(7)),
                                    "collation",
                                    rs.getString(9))));
                });
    }

    private static void constraints(Connection c, Array schemas, List<SchemaObject> out) throws SQLException {
        query(
                c,
                "SELECT n.nspname, r.relname, con.conname, con.contype, "
                        + bounded("pg_get_constraintdef(con.oid, true)") + " FROM pg_constraint con"
                        + " JOIN pg_class r ON r.oid = con.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace"
                        + " WHERE con.conrelid <> 0 AND n.nspname = ANY (?)"
                        + String.format(NOT_EXTENSION_MEMBER, "pg_class", "r.oid"),
                schemas,
                rs -> out.add(SchemaObject.of(
                        "constraint",
                        rs.getString(1) + "." + rs.getString(2) + "." + rs.getString(3),
                        attrs("type", contype(rs.getString(4)), "definition", rs.getString(5)))));
    }

    private static void indexes(Connection c, Array schemas, List<SchemaObject> out) throws SQLException {
        query(
                c,
                "SELECT n.nspname, ic.relname, tc.relname, " + bounded("pg_get_indexdef(i.indexrelid)")
                        + " FROM pg_index i"
                        + " JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class tc ON tc.oid = i.indrelid"
                        + " JOIN pg_namespace n ON n.oid = ic.relnamespace WHERE n.nspname = ANY (?)"
                        + String.format(NOT_EXTENSION_MEMBER, "pg_class", "tc.oid"),
                schemas,
                rs -> out.add(SchemaObject.of(
                        "index",
                        rs.getString(1) + "." + rs.getString(2),
                        attrs("table", rs.getString(1) + "." + rs.getString(3), "definition", rs.getString(4)))));
    }

    private static void views(Connection c, Array schemas, List<SchemaObject> out) throws SQLException {
        query(
                c,
                "SELECT n.nspname, c.relname, c.relkind, " + bounded("pg_get_viewdef(c.oid, true)") + " FROM pg_class c"
                        + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = ANY (?)"
                        + String.format(NOT_EXTENSION_MEMBER, "pg_class", "c.oid"),
                schemas,
                rs -> out.add(SchemaObject.of(
                        "view",
                        rs.getString(1) + "." + rs.getString(2),
                        attrs(
                                "kind",
                                rs.getString(3).equals("m") ? "materialized" : "view",
                                "definition",
                                rs.getString(4)))));
    }

    private static void functions(Connection c, Array schemas, List<SchemaObject> out) throws SQLException {
        query(
                c,
                "SELECT n.nspname, p.proname, pg_get_function_identity_arguments(p.oid), p.prokind,"
                        + " pg_get_function_result(p.oid), l.lanname, md5(coalesce(p.prosrc, '')), p.provolatile, p.prosecdef"
                        + " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang"
                        + " WHERE n.nspname = ANY (?)" + String.format(NOT_EXTENSION_MEMBER, "pg_proc", "p.oid"),
                schemas,
                rs -> out.add(SchemaObject.of(
                        "function",
                        rs.getString(1) + "." + rs.getString(2) + "(" + rs.getString(3) + ")",
                        attrs(
                                "kind",
                                prokind(rs.getString(4)),
                                "returns",
                                rs.getString(5),
                                "language",
                                rs.getString(6),
                                "body_md5",
                                rs.getString(7),
                                "volatility",
                                volatility(rs.getString(8)),
                                "security_definer",
                                rs.getBoolean(9) ? "yes" : null))));
    }

    private static void sequences(Connection c, Array schemas, List<SchemaObject> out) throws SQLException {
        query(
                c,
                "SELECT n.nspname, c.relname, format_type(s.seqtypid, NULL), s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcycle"
                        + " FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname = ANY (?)" + String.format(NOT_EXTENSION_MEMBER, "pg_class", "c.oid"),
                schemas,
                rs -> out.add(SchemaObject.of(
                        "sequence",
                        rs.getString(1) + "." + rs.getString(2),
                        attrs(
                                "type",
                                rs.getString(3),
                                "start",
                                rs.getString(4),
                                "increment",
                                rs.getString(5),
                                "min",
                                rs.getString(6),
                                "max",
                                rs.getString(7),
                                "cycle",
                                rs.getBoolean(8) ? "yes" : "no"))));
    }

    // --- plumbing ----------------------------------------------------------------------------

    /**
     * A definition as the database cuts it: whole up to {@value #MAX_DEFINITION} bytes, else its length and md5 (a change
     * still shows in a diff), so a view or default holding a huge literal costs the digest its fingerprint, not its size.
     */
    static String bounded(String expression) {
        return "(SELECT CASE WHEN pg_catalog.octet_length(d) OPERATOR(pg_catalog.<=) " + MAX_DEFINITION
                + " THEN d ELSE pg_catalog.concat("
                + "'cut: ', pg_catalog.octet_length(d), ' bytes, md5 ', pg_catalog.md5(d)) END FROM (SELECT "
                + expression + " AS d) b)";
    }

    private static final int MAX_DEFINITION = 16 * 1024;

    @FunctionalInterface
    private interface Row {
        void take(ResultSet rs) throws SQLException;
    }

    private static void query(Connection c, String sql, Array schemas, Row row) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (schemas != null) {
                ps.setArray(1, schemas);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    row.take(rs);
                }
            }
        }
    }

    private static String single(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static Map<String, String> attrs(String... kv) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            out.put(kv[i], kv[i + 1]);
        }
        return out;
    }

    private static String relkind(String k) {
        return switch (k) {
            case "p" -> "partitioned";
            case "f" -> "foreign";
            default -> "table";
        };
    }

    private static String contype(String t) {
        return switch (t) {
            case "p" -> "primary key";
            case "f" -> "foreign key";
            case "u" -> "unique";
            case "c" -> "check";
            case "x" -> "exclusion";
            case "t" -> "trigger";
            case "n" -> "not null";
            default -> t;
        };
    }

    private static String identity(String i) {
        return switch (i == null ? "" : i) {
            case "a" -> "always";
            case "d" -> "by default";
            default -> null;
        };
    }

    private static String prokind(String k) {
        return switch (k) {
            case "p" -> "procedure";
            case "a" -> "aggregate";
            case "w" -> "window";
            default -> "function";
        };
    }

    private static String volatility(String v) {
        return switch (v) {
            case "i" -> "immutable";
            case "s" -> "stable";
            default -> "volatile";
        };
    }
}
