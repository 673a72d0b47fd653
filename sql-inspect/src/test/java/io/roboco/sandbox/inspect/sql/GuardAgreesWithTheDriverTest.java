package io.roboco.sandbox.inspect.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.postgresql.core.Parser;

/**
 * The guard against pgjdbc's own lexer. They disagree, always in one direction: pgjdbc misreads some texts
 * Postgres reads as one statement (an E'' string right after a quote, a digit or a dollar quote; a dollar quote
 * right after a digit; '/*' followed by '/'), and would split them at a ';' that is really inside a string or a
 * comment, sending the parts as separate commands. The guard reads them as Postgres does (InspectionIT checks
 * that against the server, with random statements too), so the execution layer checks the driver's own parse
 * and refuses such texts.
 * If this canary fails, pgjdbc's lexer changed: re-check the execution layer's reasoning (ReadOnlySession).
 */
class GuardAgreesWithTheDriverTest {
    private static final QueryGuard GUARD = new QueryGuard(ColumnPatterns.none(), false, 20_000);

    private static int driverStatements(String sql) throws Exception {
        return Parser.parseJdbcSql(sql, true, true, true, false, false).size();
    }

    @Test
    void pgjdbcSplitsTextsPostgresReadsAsOneStatementWhichTheGuardReadsAsPostgresDoes() throws Exception {
        for (String sql : Corpora.PGJDBC_MISREADS) {
            assertThat(GUARD.check(sql))
                    .as("the guard reads %s as one statement, as Postgres does", sql)
                    .isInstanceOf(GuardVerdict.Allowed.class);
            assertThat(driverStatements(sql)).as("pgjdbc splits %s", sql).isGreaterThan(1);
        }
    }

    @Test
    void theLegitimateCorpusIsOneStatementToTheDriverToo() throws Exception {
        for (String sql : Corpora.LEGITIMATE) {
            assertThat(driverStatements(sql)).as(sql).isEqualTo(1);
        }
    }
}
