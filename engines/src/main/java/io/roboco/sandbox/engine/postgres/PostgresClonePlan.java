package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.CloneMask;
import io.roboco.sandbox.engine.MaskRule;
import io.roboco.sandbox.engine.SeedException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rows a clone copies, table by table, with a {@link CloneMask} applied: for each of the source's tables the query
 * run <b>on the source</b> ({@code SELECT <column or its masking expression>, … FROM ONLY t LIMIT n}), so a masked
 * column's original value never leaves the source, and the target's column list. Made before anything is copied: a
 * denied-pattern column without a rule, a rule naming no column of the source, or a text rule on a column that is not
 * text refuses the seed, naming the column.
 *
 * <p>A digest rule ({@code hash}, {@code fake_email}) is {@code md5} of a random salt of this clone and the value: the
 * same value gives the same digest within one clone (joins on it still match), and a digest cannot be looked up in a
 * table of known values' digests. Every expression is cast to the column's own type (a {@code varchar(n)} cuts it).
 */
final class PostgresClonePlan {
    /** One column of a source table as the source's catalog describes it. */
    record Column(
            String schema, String table, String kind, String name, String type, boolean text, boolean generated) {}

    /** One table's copy: the query on the source, and the target with its column list (for {@code \copy}). */
    record TableCopy(String table, String sourceQuery, String target) {}

    /** The catalog query whose rows {@link #columns} reads: the tables a clone copies and their columns. */
    static final String COLUMNS_QUERY = "SELECT n.nspname, c.relname, c.relkind, a.attname,"
            + " format_type(a.atttypid, a.atttypmod), t.typcategory = 'S', a.attgenerated <> ''"
            + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
            + " JOIN pg_type t ON t.oid = a.atttypid"
            + " WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition"
            + " AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'"
            + " ORDER BY 1, 2, a.attnum";

    private PostgresClonePlan() {}

    /** The rows of {@link #COLUMNS_QUERY} as {@code psql -X -A -t -z -0} prints them: every field ended by a NUL. */
    static List<Column> columns(String psqlOutput) throws SeedException {
        List<String> f = new ArrayList<>(List.of(psqlOutput.split("\0", -1)));
        if (!f.isEmpty() && f.get(f.size() - 1).isBlank()) {
            f.remove(f.size() - 1);
        }
        if (f.size() % 7 != 0) {
            throw new SeedException("clone: the source's catalog answered in an unexpected shape");
        }
        List<Column> out = new ArrayList<>();
        for (int i = 0; i < f.size(); i += 7) {
            out.add(new Column(
                    f.get(i),
                    f.get(i + 1),
                    f.get(i + 2),
                    f.get(i + 3),
                    f.get(i + 4),
                    "t".equals(f.get(i + 5).strip()),
                    "t".equals(f.get(i + 6).strip())));
        }
        return out;
    }

    /**
     * The copies of {@code columns}' tables under {@code mask}, at most {@code maxRows} rows each.
     *
     * @throws SeedException naming the column, before anything is copied
     */
    static List<TableCopy> plan(List<Column> columns, CloneMask mask, int maxRows, String salt) throws SeedException {
        Set<String> known = new LinkedHashSet<>();
        for (Column c : columns) {
            known.add(c.schema() + "." + c.table() + "." + c.name());
        }
        for (String ruled : mask.rules().keySet()) {
            if (!known.contains(ruled)) {
                throw new SeedException("clone refused: the mask rule for " + ruled
                        + " names no column of the source's tables (" + tableColumns(columns, ruled)
                        + "); correct sandbox_seed's mask; nothing was copied");
            }
        }
        Map<String, List<Column>> byTable = new LinkedHashMap<>();
        for (Column c : columns) {
            byTable.computeIfAbsent(c.schema() + "." + c.table(), k -> new ArrayList<>())
                    .add(c);
        }
        List<TableCopy> out = new ArrayList<>();
        for (List<Column> table : byTable.values()) {
            Column first = table.get(0);
            List<String> selected = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (Column c : table) {
                if (c.generated()) {
                    continue;
                }
                String qualified = c.schema() + "." + c.table() + "." + c.name();
                Optional<MaskRule> rule = mask.rule(c.schema(), c.table(), c.name());
                if (rule.isEmpty()) {
                    Optional<String> denied = mask.deniedBy(c.name());
                    if (denied.isPresent()) {
                        throw new SeedException("clone refused: column " + qualified + " matches the denied-column"
                                + " pattern '" + denied.get() + "' and has no mask rule; give it one in sandbox_seed's"
                                + " clone mask (e.g. \"" + c.table() + "." + c.name() + "\": \"hash\"; rules: "
                                + MaskRule.RULES + "); nothing was copied");
                    }
                }
                if (rule.isPresent() && rule.get().needsText() && !c.text()) {
                    throw new SeedException(
                            "clone refused: the mask rule " + rule.get().json() + " for " + qualified
                                    + " needs a text column, and it is " + c.type() + " (use null or a constant);"
                                    + " nothing was copied");
                }
                String column = PostgresEngine.identifier(c.name());
                selected.add(
                        rule.map(r -> expression(r, column, c.type(), salt)).orElse(column));
                names.add(column);
            }
            String relation =
                    PostgresEngine.identifier(first.schema()) + "." + PostgresEngine.identifier(first.table());
            // ONLY: an inheritance child is copied as its own table (a partitioned table's rows are read through it)
            String from = ("p".equals(first.kind()) ? "" : "ONLY ") + relation;
            String list = String.join(", ", names);
            out.add(new TableCopy(
                    first.schema() + "." + first.table(),
                    "SELECT " + (selected.isEmpty() ? "" : String.join(", ", selected)) + " FROM " + from + " LIMIT "
                            + maxRows,
                    relation + (names.isEmpty() ? "" : " (" + list + ")")));
        }
        return out;
    }

    /** The masking expression of {@code rule} on {@code column}, computed on the source, cast to the column's type. */
    static String expression(MaskRule rule, String column, String type, String salt) {
        String value = column + "::text";
        String expr;
        if (rule instanceof MaskRule.Null) {
            expr = "NULL";
        } else if (rule instanceof MaskRule.Hash) {
            expr = "md5(" + PostgresEngine.literal(salt) + " || " + value + ")";
        } else if (rule instanceof MaskRule.FakeEmail) {
            expr = "'user_' || left(md5(" + PostgresEngine.literal(salt) + " || " + value + "), 16)"
                    + " || '@example.invalid'";
        } else if (rule instanceof MaskRule.KeepLast k) {
            expr = "CASE WHEN length(" + value + ") > " + k.n() + " THEN repeat('*', length(" + value + ") - " + k.n()
                    + ") || right(" + value + ", " + k.n() + ") ELSE repeat('*', length(" + value + ")) END";
        } else {
            expr = constant(((MaskRule.Constant) rule).value());
        }
        return "(" + expr + ")::" + type;
    }

    /** A standard-conforming string literal of any text (a backslash is an ordinary character in one). */
    private static String constant(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    private static String tableColumns(List<Column> columns, String ruled) {
        String table = ruled.substring(0, ruled.lastIndexOf('.'));
        List<String> names = new ArrayList<>();
        for (Column c : columns) {
            if ((c.schema() + "." + c.table()).equals(table)) {
                names.add(c.name());
            }
        }
        return names.isEmpty() ? "the source has no table " + table : table + " has: " + String.join(", ", names);
    }
}
