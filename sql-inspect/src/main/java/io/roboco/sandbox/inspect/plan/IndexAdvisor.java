package io.roboco.sandbox.inspect.plan;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Heuristic index suggestions from a plan's sequential scans with filters: equality columns first, then one
 * range column (a btree serves a range only on its last used column); {@code LIKE} patterns get a trigram
 * GIN index. Statements are {@code CREATE INDEX CONCURRENTLY} text, never executed here.
 */
public final class IndexAdvisor {
    private static final double SMALL_TABLE = 1000;
    private static final Pattern PLAIN_NAME = Pattern.compile("[a-z_][a-z0-9_$]*");
    private static final Set<String> RESERVED = Set.of(
            "all",
            "analyse",
            "analyze",
            "and",
            "any",
            "array",
            "as",
            "asc",
            "both",
            "case",
            "cast",
            "check",
            "collate",
            "column",
            "constraint",
            "create",
            "default",
            "desc",
            "distinct",
            "do",
            "else",
            "end",
            "except",
            "false",
            "for",
            "foreign",
            "from",
            "grant",
            "group",
            "having",
            "in",
            "into",
            "is",
            "leading",
            "limit",
            "not",
            "null",
            "offset",
            "on",
            "only",
            "or",
            "order",
            "primary",
            "references",
            "select",
            "table",
            "then",
            "to",
            "true",
            "union",
            "unique",
            "user",
            "using",
            "when",
            "where",
            "window",
            "with");

    /** What the catalog says about one scanned relation. */
    public record RelationFacts(
            String schema, String name, Set<String> columns, List<ExistingIndex> indexes, Double estimatedRows) {}

    public record ExistingIndex(String name, List<String> columns) {}

    /**
     * @param method    {@code btree} or {@code gin}
     * @param statement ready to run ({@code CREATE INDEX CONCURRENTLY …;}); never run by inspection
     */
    public record Suggestion(
            String schema, String table, List<String> columns, String method, String statement, String reason) {}

    public record Advice(List<Suggestion> suggestions, List<String> notes) {}

    private IndexAdvisor() {}

    public static Advice advise(
            List<PlanSummary.SeqScan> scans, Function<PlanSummary.SeqScan, Optional<RelationFacts>> facts) {
        List<Suggestion> suggestions = new ArrayList<>();
        Set<String> notes = new LinkedHashSet<>();
        Set<String> seen = new LinkedHashSet<>();
        for (PlanSummary.SeqScan scan : scans) {
            if (scan.filter() == null) {
                continue;
            }
            Optional<RelationFacts> found = facts.apply(scan);
            if (found.isEmpty()) {
                continue;
            }
            RelationFacts r = found.get();
            List<String> equality = new ArrayList<>();
            String range = null;
            List<String> patterns = new ArrayList<>();
            for (FilterColumns.Predicate p : FilterColumns.of(scan.filter())) {
                if (!r.columns().contains(p.column())) {
                    continue;
                }
                switch (p.kind()) {
                    case EQUALITY -> {
                        if (!equality.contains(p.column())) {
                            equality.add(p.column());
                        }
                    }
                    case RANGE -> range = range == null && !equality.contains(p.column()) ? p.column() : range;
                    case PATTERN -> patterns.add(p.column());
                }
            }
            List<String> btree = new ArrayList<>(equality);
            if (range != null && !btree.contains(range)) {
                btree.add(range);
            }
            String table = qualified(r.schema(), r.name());
            String rows = r.estimatedRows() == null ? "unknown" : "~" + Math.round(r.estimatedRows());
            if (r.estimatedRows() != null && r.estimatedRows() < SMALL_TABLE) {
                notes.add(table + " is small (" + rows
                        + " rows): a sequential scan is cheapest there today; an index pays off as it grows");
            }
            if (!btree.isEmpty()) {
                Optional<ExistingIndex> covering = r.indexes().stream()
                        .filter(ix ->
                                !ix.columns().isEmpty() && ix.columns().get(0).equals(btree.get(0)))
                        .findFirst();
                if (covering.isPresent()) {
                    notes.add("index " + covering.get().name() + " on " + table + " already starts with " + btree.get(0)
                            + ", yet the planner chose a sequential scan: the table may be small, or its statistics stale (ANALYZE "
                            + table + ")");
                } else {
                    add(
                            suggestions,
                            seen,
                            new Suggestion(
                                    r.schema(),
                                    r.name(),
                                    btree,
                                    "btree",
                                    "CREATE INDEX CONCURRENTLY ON " + table + " (" + columns(btree) + ");",
                                    "Seq Scan on " + table + " (" + rows + " rows) filters on "
                                            + String.join(", ", btree)
                                            + (range != null
                                                    ? " (equality columns first, the range column last)"
                                                    : "")));
                }
            }
            for (String column : patterns) {
                add(
                        suggestions,
                        seen,
                        new Suggestion(
                                r.schema(),
                                r.name(),
                                List.of(column),
                                "gin",
                                "CREATE INDEX CONCURRENTLY ON " + table + " USING gin (" + identifier(column)
                                        + " gin_trgm_ops);",
                                "Seq Scan on " + table + " matches a LIKE pattern on " + column
                                        + "; a trigram index needs the pg_trgm extension (request_sandbox with extensions {\"postgres\":[\"pg_trgm\"]})"));
            }
        }
        return new Advice(suggestions, List.copyOf(notes));
    }

    private static void add(List<Suggestion> out, Set<String> seen, Suggestion s) {
        if (seen.add(s.statement())) {
            out.add(s);
        }
    }

    private static String columns(List<String> names) {
        return String.join(", ", names.stream().map(IndexAdvisor::identifier).toList());
    }

    static String qualified(String schema, String name) {
        return schema == null ? identifier(name) : identifier(schema) + "." + identifier(name);
    }

    /** A name as SQL: bare when Postgres would read it back unchanged, double-quoted otherwise. */
    static String identifier(String name) {
        if (PLAIN_NAME.matcher(name).matches() && !RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
            return name;
        }
        return '"' + name.replace("\"", "\"\"") + '"';
    }
}
