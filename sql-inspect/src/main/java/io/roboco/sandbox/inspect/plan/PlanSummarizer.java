package io.roboco.sandbox.inspect.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** Summarises the parsed output of {@code EXPLAIN (FORMAT JSON)}: totals, node counts, sequential scans and warnings. */
public final class PlanSummarizer {
    private static final double MISESTIMATE = 10;

    private final Map<String, Integer> nodeTypes = new TreeMap<>();
    private final List<PlanSummary.SeqScan> seqScans = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private int nodes;

    private PlanSummarizer() {}

    /** {@code explainOutput}: the text EXPLAIN (FORMAT JSON) returned. */
    public static PlanSummary summarize(String explainOutput) {
        return summarize(PlanJson.parse(explainOutput));
    }

    public static PlanSummary summarize(Object parsed) {
        if (!(parsed instanceof List<?> list)
                || list.isEmpty()
                || !(list.get(0) instanceof Map<?, ?> top)
                || !(top.get("Plan") instanceof Map<?, ?> root)) {
            throw new IllegalArgumentException("not the output of EXPLAIN (FORMAT JSON): no [{\"Plan\": …}]");
        }
        PlanSummarizer s = new PlanSummarizer();
        s.walk(root, null);
        return new PlanSummary(
                number(root, "Total Cost"),
                number(root, "Plan Rows"),
                s.nodes,
                s.nodeTypes,
                s.seqScans,
                s.warnings,
                optional(top, "Planning Time"),
                optional(top, "Execution Time"));
    }

    private void walk(Map<?, ?> node, Map<?, ?> parent) {
        nodes++;
        String type = String.valueOf(node.get("Node Type"));
        nodeTypes.merge(type, 1, Integer::sum);
        if (type.equals("Seq Scan")) {
            seqScan(node, parent);
        }
        if (type.equals("Sort") && "Disk".equals(node.get("Sort Space Type"))) {
            warnings.add("Sort spilled to disk (" + format(optional(node, "Sort Space Used"))
                    + " kB): raise work_mem for the session or add "
                    + "an index that returns rows in the ORDER BY order");
        }
        if (type.equals("Hash") && optional(node, "Hash Batches") != null && optional(node, "Hash Batches") > 1) {
            warnings.add("Hash used " + format(optional(node, "Hash Batches"))
                    + " batches (spilled to disk): raise work_mem or reduce the rows hashed");
        }
        misestimate(node, type);
        if (node.get("Plans") instanceof List<?> children) {
            for (Object child : children) {
                if (child instanceof Map<?, ?> map) {
                    walk(map, node);
                }
            }
        }
    }

    private void seqScan(Map<?, ?> node, Map<?, ?> parent) {
        String relation = (String) node.get("Relation Name");
        String schema = (String) node.get("Schema");
        String filter = (String) node.get("Filter");
        Double actual = optional(node, "Actual Rows");
        Double loops = optional(node, "Actual Loops");
        PlanSummary.SeqScan scan = new PlanSummary.SeqScan(
                schema,
                relation,
                (String) node.get("Alias"),
                filter,
                number(node, "Plan Rows"),
                actual == null ? null : actual * (loops == null ? 1 : loops),
                optional(node, "Rows Removed by Filter"));
        seqScans.add(scan);
        String name = schema == null ? relation : schema + "." + relation;
        if (filter != null) {
            warnings.add("Seq Scan on " + name + " reads every row to apply the filter " + filter + " (est. "
                    + format(scan.estimatedRows())
                    + " rows kept): an index on the filtered columns may help; suggest_indexes proposes one");
        }
        if (parent != null
                && "Nested Loop".equals(parent.get("Node Type"))
                && "Inner".equals(node.get("Parent Relationship"))) {
            warnings.add("Nested Loop scans " + name
                    + " sequentially once per outer row: an index on its join column usually helps");
        }
    }

    private void misestimate(Map<?, ?> node, String type) {
        Double actual = optional(node, "Actual Rows");
        if (actual == null) {
            return;
        }
        double planned = Math.max(1, number(node, "Plan Rows"));
        double real = Math.max(1, actual);
        double ratio = Math.max(planned / real, real / planned);
        if (ratio >= MISESTIMATE && Math.max(planned, real) >= 100) {
            warnings.add(type + (node.get("Relation Name") != null ? " on " + node.get("Relation Name") : "")
                    + " estimated " + format(planned) + " rows but produced " + format(real) + " (" + format(ratio)
                    + "x off): run ANALYZE on the tables involved");
        }
    }

    private static double number(Map<?, ?> node, String key) {
        Double d = optional(node, key);
        return d == null ? 0 : d;
    }

    private static Double optional(Map<?, ?> node, String key) {
        return node.get(key) instanceof Number n ? n.doubleValue() : null;
    }

    private static String format(Double d) {
        if (d == null) {
            return "?";
        }
        return d == Math.rint(d) && Math.abs(d) < 1e15
                ? Long.toString(d.longValue())
                : String.format(Locale.ROOT, "%.1f", d);
    }
}
