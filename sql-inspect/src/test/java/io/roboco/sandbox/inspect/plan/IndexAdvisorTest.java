package io.roboco.sandbox.inspect.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IndexAdvisorTest {
    private static final IndexAdvisor.RelationFacts ORDERS = new IndexAdvisor.RelationFacts(
            "public",
            "orders",
            Set.of("id", "customer_id", "status", "placed_at", "note"),
            List.of(new IndexAdvisor.ExistingIndex("orders_pkey", List.of("id"))),
            50_000.0);

    private static PlanSummary.SeqScan scan(String filter) {
        return new PlanSummary.SeqScan("public", "orders", "orders", filter, 10, null, null);
    }

    private static IndexAdvisor.Advice advise(IndexAdvisor.RelationFacts facts, String filter) {
        return IndexAdvisor.advise(List.of(scan(filter)), s -> Optional.of(facts));
    }

    @Test
    void equalityColumnsComeFirstThenOneRangeColumn() {
        IndexAdvisor.Advice advice = advise(
                ORDERS,
                "((orders.placed_at > (now() - '1 day'::interval)) AND (orders.customer_id = 7) AND ((orders.status)::text = 'open'::text))");
        assertThat(advice.suggestions()).singleElement().satisfies(s -> {
            assertThat(s.columns()).containsExactly("customer_id", "status", "placed_at");
            assertThat(s.statement())
                    .isEqualTo("CREATE INDEX CONCURRENTLY ON public.orders (customer_id, status, placed_at);");
            assertThat(s.method()).isEqualTo("btree");
        });
        assertThat(advice.notes()).isEmpty();
    }

    @Test
    void likePatternsGetATrigramIndexAndIsNullCountsAsEquality() {
        IndexAdvisor.Advice advice = advise(ORDERS, "((note ~~ '%late%'::text) AND (customer_id IS NULL))");
        assertThat(advice.suggestions())
                .extracting(IndexAdvisor.Suggestion::statement)
                .containsExactly(
                        "CREATE INDEX CONCURRENTLY ON public.orders (customer_id);",
                        "CREATE INDEX CONCURRENTLY ON public.orders USING gin (note gin_trgm_ops);");
        assertThat(advice.suggestions().get(1).reason()).contains("pg_trgm");
    }

    @Test
    void anExistingIndexOnTheLeadingColumnBecomesANoteAndSmallTablesAreNoted() {
        IndexAdvisor.RelationFacts indexed = new IndexAdvisor.RelationFacts(
                "public",
                "orders",
                ORDERS.columns(),
                List.of(new IndexAdvisor.ExistingIndex("orders_customer", List.of("customer_id"))),
                120.0);
        IndexAdvisor.Advice advice = advise(indexed, "(customer_id = 3)");
        assertThat(advice.suggestions()).isEmpty();
        assertThat(advice.notes())
                .anySatisfy(n -> assertThat(n)
                        .contains("index orders_customer on public.orders already starts with customer_id"));
        assertThat(advice.notes()).anySatisfy(n -> assertThat(n).contains("public.orders is small (~120 rows)"));
    }

    @Test
    void namesThatAreNotColumnsOfTheTableAndUnfilteredScansAreIgnored() {
        assertThat(advise(ORDERS, "(lower(name) = 'x'::text)").suggestions()).isEmpty();
        assertThat(IndexAdvisor.advise(List.of(scan(null)), s -> Optional.of(ORDERS))
                        .suggestions())
                .isEmpty();
    }

    @Test
    void identifiersAreQuotedOnlyWhenPostgresWouldNotReadThemBack() {
        assertThat(IndexAdvisor.identifier("customer_id")).isEqualTo("customer_id");
        assertThat(IndexAdvisor.identifier("Order")).isEqualTo("\"Order\"");
        assertThat(IndexAdvisor.identifier("user")).isEqualTo("\"user\"");
        assertThat(IndexAdvisor.identifier("a\"b")).isEqualTo("\"a\"\"b\"");
    }
}
