package io.roboco.sandbox.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BoundedSelectTest {

    @Test
    void wrapsQueriesButNotExplainOrOtherStatements() {
        assertThat(BoundedSelect.wraps("SELECT 1")).isTrue();
        assertThat(BoundedSelect.wraps("  with t AS (SELECT 1) SELECT * FROM t"))
                .isTrue();
        assertThat(BoundedSelect.wraps("(SELECT 1) UNION (SELECT 2)")).isTrue();
        assertThat(BoundedSelect.wraps("/* c */ VALUES (1)")).isTrue();
        assertThat(BoundedSelect.wraps("EXPLAIN SELECT 1")).isFalse();
        assertThat(BoundedSelect.wraps("SELECT 'unterminated")).isFalse();
    }

    @Test
    void theWrappedFormKeepsTheStatementVerbatimOnItsOwnLinesAndDropsOnlyAFinalSemicolon() {
        String body = BoundedSelect.body("SELECT a, b FROM t -- trailing comment\n;  \n");
        assertThat(body).isEqualTo("SELECT a, b FROM t -- trailing comment\n");
        String sql = BoundedSelect.sql(body, 2, 100);
        assertThat(sql)
                .isEqualTo(
                        "SELECT pg_catalog.left(q.c1::pg_catalog.text, 100), pg_catalog.octet_length(q.c1::pg_catalog.text), "
                                + "pg_catalog.left(q.c2::pg_catalog.text, 100), pg_catalog.octet_length(q.c2::pg_catalog.text) "
                                + "FROM (SELECT * FROM (\nSELECT a, b FROM t -- trailing comment\n\n) AS q0(c1, c2) OFFSET 0) AS q");
    }

    @Test
    void aRowAtItsWidestFitsTheFetchBudgetWhateverTheColumnCount() {
        int budget = InspectionPolicy.DEFAULT_FETCH_BYTES;
        for (int columns : new int[] {1, 2, 10, 100, 1664}) {
            int chars = BoundedSelect.cellChars(columns, 4096, budget);
            int fetch = BoundedSelect.fetchSize(columns, chars, budget, 201);
            assertThat(chars).isBetween(16, 4096);
            assertThat(fetch).isBetween(1, 201);
            assertThat((long) fetch * columns * (chars * 4L + 32))
                    .as("%d columns", columns)
                    .isLessThanOrEqualTo(budget);
        }
        assertThat(BoundedSelect.cellChars(1664, 4096, budget)).isLessThan(4096);
    }
}
