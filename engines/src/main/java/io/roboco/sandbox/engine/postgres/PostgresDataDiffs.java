package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.engine.CloneMask;
import io.roboco.sandbox.engine.DataDiff;
import io.roboco.sandbox.engine.DataDiffs;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.UnknownNameException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Postgres {@link DataDiffs}: the agent's database now against a checkpoint's copy ({@link PostgresCheckpoints}), table
 * by table, both read on the admin credential. A table with a primary key is read from both sides as
 * {@code (key, md5 of the row)} ordered by the key's text in byte order, and the two ordered streams are merged: a key
 * only now is an insert, only then a delete, on both with another hash an update. A table without one is matched by
 * whole rows (its rows' hashes, as a multiset): an update counts as a delete and an insert, and the part says so.
 *
 * <p>The checkpoint's copy accepts no connection ({@code ALLOW_CONNECTIONS false}); for the diff its {@code CONNECT}
 * is revoked from {@code PUBLIC} (so the agent's role never may), connections are allowed for the moment the admin's
 * opens, and refused again. Every row of both sides is read: the time grows with the data. Tables of extensions
 * ({@code spatial_ref_sys}) and partitions (read through their parent) are left out.
 */
final class PostgresDataDiffs implements DataDiffs {
    private static final int FETCH = 1_000;
    /** The alias a row is read under (a column of the same name would shadow a shorter one, e.g. {@code t}). */
    private static final String ROW = "roboco_row__";
    /** A diff reads whole tables: the admin connection's socket timeout (5 s for the short admin calls) is raised. */
    private static final int READ_TIMEOUT_MILLIS = 600_000;
    /** What a sample shows for a column inspection hides. */
    static final String REDACTED = "<redacted>";
    /** The denied-column patterns inspection hides ({@link CloneMask#DENIED_DEFAULTS}). */
    private static final CloneMask HIDDEN = CloneMask.none();

    private static final String TABLES = "SELECT n.nspname, c.relname,"
            + " ARRAY(SELECT a.attname::text FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY"
            + " AS k(attnum, ord) JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum"
            + " WHERE i.indrelid = c.oid AND i.indisprimary ORDER BY k.ord)"
            + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition"
            + " AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
            + " AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'"
            + " AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid"
            + " AND d.deptype = 'e')"
            + " ORDER BY 1, 2";

    /** A table of one side: schema, name and its primary key's columns in key order (empty: none). */
    record Table(String schema, String name, List<String> key) {
        String qualified() {
            return schema + "." + name;
        }

        String sql() {
            return PostgresEngine.identifier(schema) + "." + PostgresEngine.identifier(name);
        }
    }

    @Override
    public DataDiff diff(ProbeTarget target, String checkpoint, Limits limits) throws SQLException {
        CheckpointName.of(checkpoint);
        String db = target.credentials().database();
        String copy = db + PostgresCheckpoints.SUFFIX + checkpoint;
        try (Connection admin = PostgresEngine.connect(target, Login.ADMIN, PostgresEngine.MAINTENANCE_DB)) {
            if (!PostgresCheckpoints.exists(admin, copy)) {
                throw new UnknownNameException("no checkpoint '" + checkpoint + "' in this sandbox; there are: "
                        + PostgresCheckpoints.names(PostgresCheckpoints.list(admin, db)));
            }
            try (Connection then = openCheckpoint(admin, target, copy);
                    Connection now = reading(PostgresEngine.connect(target, Login.ADMIN, db))) {
                return diff(then, now, limits);
            }
        }
    }

    /** An admin connection to the checkpoint's copy, which nobody else may open meanwhile (see the class comment). */
    private static Connection openCheckpoint(Connection admin, ProbeTarget target, String copy) throws SQLException {
        try (Statement s = admin.createStatement()) {
            s.execute("REVOKE CONNECT, TEMPORARY ON DATABASE " + PostgresEngine.identifier(copy) + " FROM PUBLIC");
            s.execute("ALTER DATABASE " + PostgresEngine.identifier(copy) + " ALLOW_CONNECTIONS true");
            try {
                return reading(PostgresEngine.connect(target, Login.ADMIN, copy));
            } finally {
                s.execute("ALTER DATABASE " + PostgresEngine.identifier(copy) + " ALLOW_CONNECTIONS false");
            }
        }
    }

    /** {@code c} in one read-only snapshot, with a socket timeout for whole-table reads. */
    private static Connection reading(Connection c) throws SQLException {
        try {
            c.setNetworkTimeout(Runnable::run, READ_TIMEOUT_MILLIS);
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setReadOnly(true);
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    static DataDiff diff(Connection then, Connection now, Limits limits) throws SQLException {
        Map<String, Table> before = tables(then);
        Map<String, Table> after = tables(now);
        TreeSet<String> names = new TreeSet<>(before.keySet());
        names.addAll(after.keySet());
        DataDiff.Builder out = new DataDiff.Builder(limits);
        for (String name : names) {
            Table t0 = before.get(name);
            Table t1 = after.get(name);
            DataDiff.Part part = part(then, t0, now, t1, limits, out.listing());
            if (part == null) {
                out.unchanged();
            } else {
                out.add(part);
            }
        }
        return out.build();
    }

    /** The part of table {@code t0} (then) / {@code t1} (now), either null when absent; null when nothing changed. */
    private static DataDiff.Part part(
            Connection then, Table t0, Connection now, Table t1, Limits limits, boolean sampling) throws SQLException {
        Table any = t1 != null ? t1 : t0;
        DataDiff.Status status =
                t0 == null ? DataDiff.Status.ADDED : t1 == null ? DataDiff.Status.REMOVED : DataDiff.Status.CHANGED;
        List<String> key = t1 != null ? t1.key() : t0.key();
        String note = null;
        if (t0 != null && t1 != null && !t0.key().equals(t1.key())) {
            key = List.of();
            note = "its primary key changed since the checkpoint (" + columns(t0.key()) + " then, " + columns(t1.key())
                    + " now): rows are matched as whole rows";
        }
        boolean keyed = !key.isEmpty();
        if (!keyed && status == DataDiff.Status.CHANGED) {
            status = DataDiff.Status.NO_PRIMARY_KEY;
            if (note == null) {
                note = "no primary key: rows are matched as whole rows, so an updated row counts as one deleted and one"
                        + " inserted";
            }
        }
        DataDiff.Tally tally = new DataDiff.Tally(limits);
        String keyExpr = keyed ? keyExpression(key) : "md5(" + ROW + "::text)";
        try (Rows a = Rows.of(then, t0, keyExpr);
                Rows b = Rows.of(now, t1, keyExpr)) {
            merge(a, b, tally);
        }
        boolean keyChanged = t0 != null && t1 != null && !t0.key().equals(t1.key());
        if (!tally.changed() && !keyChanged && t0 != null && t1 != null) {
            return null;
        }
        List<DataDiff.Sample> inserted = new ArrayList<>();
        List<DataDiff.Sample> updated = new ArrayList<>();
        List<DataDiff.Sample> deleted = new ArrayList<>();
        if (sampling) {
            for (String k : tally.insertedKeys()) {
                inserted.add(new DataDiff.Sample(shown(k, keyed, key), null, row(now, t1, key, k, limits)));
            }
            for (String k : tally.updatedKeys()) {
                updated.add(new DataDiff.Sample(
                        shown(k, keyed, key), row(then, t0, key, k, limits), row(now, t1, key, k, limits)));
            }
            for (String k : tally.deletedKeys()) {
                deleted.add(new DataDiff.Sample(shown(k, keyed, key), row(then, t0, key, k, limits), null));
            }
        }
        return tally.part(
                "table", any.qualified(), keyed ? columns(key) : null, status, inserted, updated, deleted, note);
    }

    /** Merges two streams ordered by key (code point order, which is the byte order the queries sort in). */
    static void merge(Rows a, Rows b, DataDiff.Tally tally) throws SQLException {
        boolean hasA = a.next();
        boolean hasB = b.next();
        while (hasA || hasB) {
            int cmp = !hasA ? 1 : !hasB ? -1 : compareCodePoints(a.key(), b.key());
            if (cmp < 0) {
                tally.deleted(a.key());
                hasA = a.next();
            } else if (cmp > 0) {
                tally.inserted(b.key());
                hasB = b.next();
            } else {
                if (Objects.equals(a.hash(), b.hash())) {
                    tally.same();
                } else {
                    tally.updated(a.key());
                }
                hasA = a.next();
                hasB = b.next();
            }
        }
    }

    /** {@code x} against {@code y} by Unicode code point: the order of their UTF-8 bytes ({@code COLLATE "C"}). */
    static int compareCodePoints(String x, String y) {
        int i = 0;
        int j = 0;
        while (i < x.length() && j < y.length()) {
            int cx = x.codePointAt(i);
            int cy = y.codePointAt(j);
            if (cx != cy) {
                return Integer.compare(cx, cy);
            }
            i += Character.charCount(cx);
            j += Character.charCount(cy);
        }
        return Integer.compare(x.length() - i, y.length() - j);
    }

    /** One side's rows of a table as {@code (key, hash)} in key order; none when the table is not on that side. */
    interface Rows extends AutoCloseable {
        boolean next() throws SQLException;

        String key() throws SQLException;

        String hash() throws SQLException;

        @Override
        void close() throws SQLException;

        static Rows of(Connection c, Table table, String keyExpr) throws SQLException {
            if (table == null) {
                return new Rows() {
                    @Override
                    public boolean next() {
                        return false;
                    }

                    @Override
                    public String key() {
                        throw new IllegalStateException("no rows");
                    }

                    @Override
                    public String hash() {
                        throw new IllegalStateException("no rows");
                    }

                    @Override
                    public void close() {}
                };
            }
            PreparedStatement ps = c.prepareStatement("SELECT (" + keyExpr + ") COLLATE \"C\" AS k, md5(" + ROW
                    + "::text) AS h FROM " + table.sql() + " " + ROW + " ORDER BY 1");
            ps.setFetchSize(FETCH);
            ResultSet rs;
            try {
                rs = ps.executeQuery();
            } catch (SQLException e) {
                ps.close();
                throw e;
            }
            return new Rows() {
                @Override
                public boolean next() throws SQLException {
                    return rs.next();
                }

                @Override
                public String key() throws SQLException {
                    return rs.getString(1);
                }

                @Override
                public String hash() throws SQLException {
                    return rs.getString(2);
                }

                @Override
                public void close() throws SQLException {
                    try (ps) {
                        rs.close();
                    }
                }
            };
        }
    }

    /** The key as text: a JSON array of the key's columns, e.g. {@code [7]} or {@code ["acme", 7]}. */
    private static String keyExpression(List<String> key) {
        List<String> cols =
                key.stream().map(k -> ROW + "." + PostgresEngine.identifier(k)).toList();
        return "jsonb_build_array(" + String.join(", ", cols) + ")::text";
    }

    /**
     * A sample's key as shown: a one-column key's value alone ({@code 7}), else the array; null for whole rows;
     * {@value #REDACTED} when a column of the key is one inspection hides.
     */
    private static String shown(String k, boolean keyed, List<String> key) {
        if (!keyed) {
            return null;
        }
        if (key.stream().anyMatch(column -> HIDDEN.deniedBy(column).isPresent())) {
            return REDACTED;
        }
        return key.size() == 1 ? k.substring(1, k.length() - 1) : k;
    }

    /**
     * The columns of {@code table} whose names match the denied-column patterns inspection hides
     * ({@link CloneMask#DENIED_DEFAULTS}): a sample shows them as {@value #REDACTED}, so a diff puts no more of a row
     * into an agent's context than {@code run_readonly_query} would.
     */
    private static List<String> hiddenColumns(Connection c, Table table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT attname FROM pg_attribute WHERE attrelid = ?::regclass"
                + " AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
            ps.setString(1, table.sql());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String column = rs.getString(1);
                    if (HIDDEN.deniedBy(column).isPresent()) {
                        out.add(column);
                    }
                }
            }
        }
        return out;
    }

    /** One row of {@code table} as JSON, cut to the limit: by its key, or (no key) by the hash of the whole row. */
    private static String row(Connection c, Table table, List<String> key, String k, Limits limits)
            throws SQLException {
        String where;
        if (key.isEmpty()) {
            where = "md5(" + ROW + "::text) = ?";
        } else {
            StringBuilder fields = new StringBuilder();
            List<String> own = new ArrayList<>();
            List<String> theirs = new ArrayList<>();
            for (int i = 0; i < key.size(); i++) {
                fields.append(i == 0 ? "" : ", ")
                        .append("?::text, (?::jsonb)->")
                        .append(i);
                own.add(ROW + "." + PostgresEngine.identifier(key.get(i)));
                theirs.add("r." + PostgresEngine.identifier(key.get(i)));
            }
            where = "(" + String.join(", ", own) + ") = (SELECT " + String.join(", ", theirs)
                    + " FROM jsonb_populate_record(NULL::" + table.sql() + ", jsonb_build_object(" + fields + ")) r)";
        }
        List<String> hidden = hiddenColumns(c, table);
        String json = hidden.isEmpty()
                ? "row_to_json(" + ROW + ")::text"
                : "(to_jsonb(" + ROW + ") || jsonb_build_object(VARIADIC ?::text[]))::text";
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT left(" + json + ", ?) FROM " + table.sql() + " " + ROW + " WHERE " + where + " LIMIT 1")) {
            int p = 1;
            if (!hidden.isEmpty()) {
                List<String> pairs = new ArrayList<>();
                hidden.forEach(column -> {
                    pairs.add(column);
                    pairs.add(REDACTED);
                });
                ps.setArray(p++, c.createArrayOf("text", pairs.toArray()));
            }
            ps.setInt(p++, limits.valueChars() + 1);
            if (key.isEmpty()) {
                ps.setString(p, k);
            } else {
                for (String column : key) {
                    ps.setString(p++, column);
                    ps.setString(p++, k);
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? limits.cut(rs.getString(1)) : null;
            }
        }
    }

    private static String columns(List<String> key) {
        if (key.isEmpty()) {
            return "none";
        }
        return key.size() == 1 ? key.get(0) : "(" + String.join(", ", key) + ")";
    }

    /** The tables of one side by qualified name. */
    static Map<String, Table> tables(Connection c) throws SQLException {
        Map<String, Table> out = new TreeMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(TABLES)) {
            while (rs.next()) {
                String[] key = (String[]) rs.getArray(3).getArray();
                Table t = new Table(rs.getString(1), rs.getString(2), List.of(key));
                out.put(t.qualified(), t);
            }
        }
        return out;
    }
}
