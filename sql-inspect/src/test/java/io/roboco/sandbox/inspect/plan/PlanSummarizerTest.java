package io.roboco.sandbox.inspect.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanSummarizerTest {
    private static final String NESTED_LOOP = """
            [{"Plan": {"Node Type": "Nested Loop", "Total Cost": 1250.5, "Plan Rows": 40, "Plans": [
              {"Node Type": "Index Scan", "Parent Relationship": "Outer", "Relation Name": "customers", "Alias": "c", "Plan Rows": 4},
              {"Node Type": "Seq Scan", "Parent Relationship": "Inner", "Relation Name": "orders", "Schema": "public", "Alias": "o",
               "Filter": "(o.status = 'open'::text)", "Plan Rows": 10, "Actual Rows": 1200, "Actual Loops": 4, "Rows Removed by Filter": 3800}
            ]}, "Planning Time": 0.2, "Execution Time": 12.5}]
            """;

    @Test
    void summarisesTotalsNodesScansAndTiming() {
        PlanSummary s = PlanSummarizer.summarize(NESTED_LOOP);
        assertThat(s.totalCost()).isEqualTo(1250.5);
        assertThat(s.estimatedRows()).isEqualTo(40);
        assertThat(s.nodeCount()).isEqualTo(3);
        assertThat(s.nodeTypes()).isEqualTo(Map.of("Index Scan", 1, "Nested Loop", 1, "Seq Scan", 1));
        assertThat(s.seqScans()).singleElement().satisfies(scan -> {
            assertThat(scan.schema()).isEqualTo("public");
            assertThat(scan.relation()).isEqualTo("orders");
            assertThat(scan.filter()).isEqualTo("(o.status = 'open'::text)");
            assertThat(scan.actualRows()).isEqualTo(4800.0);
            assertThat(scan.rowsRemoved()).isEqualTo(3800.0);
        });
        assertThat(s.planningMs()).isEqualTo(0.2);
        assertThat(s.executionMs()).isEqualTo(12.5);
    }

    @Test
    void warnsAboutFilteredSeqScansInnerSeqScansOfNestedLoopsAndMisestimates() {
        List<String> warnings = PlanSummarizer.summarize(NESTED_LOOP).warnings();
        assertThat(warnings).anySatisfy(w -> assertThat(w).startsWith("Seq Scan on public.orders reads every row"));
        assertThat(warnings)
                .anySatisfy(w ->
                        assertThat(w).startsWith("Nested Loop scans public.orders sequentially once per outer row"));
        assertThat(warnings).anySatisfy(w -> assertThat(w).contains("estimated 10 rows but produced 1200 (120x off)"));
    }

    @Test
    void warnsAboutSortsAndHashesThatSpill() {
        PlanSummary s = PlanSummarizer.summarize("""
                [{"Plan": {"Node Type": "Sort", "Total Cost": 10, "Plan Rows": 1, "Sort Space Type": "Disk", "Sort Space Used": 2048,
                  "Plans": [{"Node Type": "Hash", "Plan Rows": 1, "Hash Batches": 4}]}}]""");
        assertThat(s.warnings()).anySatisfy(w -> assertThat(w).startsWith("Sort spilled to disk (2048 kB)"));
        assertThat(s.warnings()).anySatisfy(w -> assertThat(w).startsWith("Hash used 4 batches"));
        assertThat(s.executionMs()).isNull();
    }

    @Test
    void refusesWhatIsNotAnExplainOutput() {
        assertThatThrownBy(() -> PlanSummarizer.summarize("{\"a\": 1}"))
                .hasMessageContaining("not the output of EXPLAIN");
        assertThatThrownBy(() -> PlanJson.parse("[1,")).hasMessageContaining("plan JSON");
        assertThat(PlanJson.parse("{\"s\": \"a\\u0041\\n\", \"n\": -1.5e2, \"b\": [true, false, null]}"))
                .isEqualTo(Map.of("s", "aA\n", "n", -150.0, "b", Arrays.asList(true, false, null)));
    }
}
