package io.roboco.sandbox.inspect.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The guard's rules one by one, with the reasons a model acts on. */
class QueryGuardTest {
    private final QueryGuard guard = new QueryGuard(ColumnPatterns.defaults(), false, 200);

    private GuardVerdict.Refused refused(String sql) {
        GuardVerdict verdict = guard.check(sql);
        assertThat(verdict).as(sql).isInstanceOf(GuardVerdict.Refused.class);
        return (GuardVerdict.Refused) verdict;
    }

    @Test
    void allowsOneSelectWithOrExplainAndSaysWhichKind() {
        assertThat(guard.check("SELECT 1")).isEqualTo(new GuardVerdict.Allowed("select", false));
        assertThat(guard.check("with x as (select 1) select * from x"))
                .isEqualTo(new GuardVerdict.Allowed("with", false));
        assertThat(guard.check("EXPLAIN (FORMAT JSON) SELECT 1")).isEqualTo(new GuardVerdict.Allowed("explain", false));
    }

    @Test
    void explainAnalyzeIsAllowedOnlyWhenThePolicySaysSo() {
        assertThat(refused("EXPLAIN ANALYZE SELECT 1").rule()).isEqualTo(Violation.EXPLAIN_ANALYZE);
        QueryGuard permissive = new QueryGuard(ColumnPatterns.defaults(), true, 200);
        assertThat(permissive.check("EXPLAIN (ANALYZE, BUFFERS) SELECT 1"))
                .isEqualTo(new GuardVerdict.Allowed("explain", true));
        assertThat(permissive.check("EXPLAIN ANALYZE DELETE FROM t")).isInstanceOf(GuardVerdict.Refused.class);
    }

    @Test
    void theExplainToolsAcceptOnlyWhatTheyCanWrap() {
        assertThat(guard.checkExplainable("SELECT 1")).isInstanceOf(GuardVerdict.Allowed.class);
        assertThat(((GuardVerdict.Refused) guard.checkExplainable("EXPLAIN SELECT 1")).reason())
                .contains("only SELECT or WITH statements");
    }

    @Test
    void refusalsNameWhatWasFoundAndWhatToDoInstead() {
        assertThat(refused("DELETE FROM t").reason())
                .contains("starts with 'DELETE'")
                .contains("your own connection");
        assertThat(refused("SELECT 1; SELECT 2").reason()).contains("another statement follows the ';' at offset 8");
        assertThat(refused("SELECT comment FROM posts").reason())
                .contains("COMMENT is a write")
                .contains("quote it (\"comment\")");
        assertThat(refused("SELECT pg_sleep(1)").reason()).contains("pg_sleep is refused (function: it sleeps");
        assertThat(refused("SELECT api_token FROM t").reason())
                .contains("'api_token' matches the denied-column pattern '*token*'");
        assertThat(refused("SELECT u FROM users u").reason()).contains("'u' is a whole-row reference");
        assertThat(refused("SELECT " + "1,".repeat(100) + "1").reason()).contains("the limit is 200");
    }

    @Test
    void reportsEveryViolationAtOnceUpToAFew() {
        List<Violation> all = refused("SELECT password, pg_sleep(1), nextval('s') FROM t FOR UPDATE")
                .violations();
        assertThat(all)
                .extracting(Violation::rule)
                .contains(Violation.DENIED_COLUMN, Violation.DENIED_FUNCTION, Violation.ROW_LOCK);
    }

    @Test
    void quotedOrQualifiedKeywordsAreNamesNotKeywords() {
        assertThat(guard.check("SELECT \"comment\", t.lock, 1 AS delete FROM t"))
                .isInstanceOf(GuardVerdict.Allowed.class);
    }

    @Test
    void deniedColumnsMatchCaseInsensitivelyButTablesFunctionsAndQualifiersAreNotColumns() {
        assertThat(refused("SELECT \"Password\" FROM t").rule()).isEqualTo(Violation.DENIED_COLUMN);
        assertThat(guard.check("SELECT s.id FROM secrets s")).isInstanceOf(GuardVerdict.Allowed.class);
        assertThat(guard.check("SELECT ts_token_type('default')")).isInstanceOf(GuardVerdict.Allowed.class);
        QueryGuard none = new QueryGuard(ColumnPatterns.none(), false, 200);
        assertThat(none.check("SELECT password FROM t")).isInstanceOf(GuardVerdict.Allowed.class);
    }

    @Test
    void starExpandsOnlyInTheOutermostSelectList() {
        assertThat(guard.check("SELECT *, t.* FROM t")).isInstanceOf(GuardVerdict.Allowed.class);
        assertThat(guard.check("SELECT count(*), 2 * 3 FROM t")).isInstanceOf(GuardVerdict.Allowed.class);
        assertThat(refused("SELECT a FROM (SELECT * FROM t) s").rule()).isEqualTo(Violation.STAR_PLACEMENT);
        assertThat(refused("SELECT * FROM a UNION SELECT * FROM b").rule()).isEqualTo(Violation.STAR_PLACEMENT);
        assertThat(refused("SELECT 1 FROM t WHERE EXISTS (SELECT * FROM u)").rule())
                .isEqualTo(Violation.STAR_PLACEMENT);
    }

    @Test
    void aliasListsAreRefusedOnTablesButNotOnFunctionsOrSubqueries() {
        assertThat(refused("SELECT a FROM t AS x(a)").rule()).isEqualTo(Violation.COLUMN_ALIAS_LIST);
        assertThat(guard.check("SELECT n FROM generate_series(1, 2) g(n)")).isInstanceOf(GuardVerdict.Allowed.class);
        assertThat(guard.check("SELECT a FROM (SELECT 1) s(a)")).isInstanceOf(GuardVerdict.Allowed.class);
    }

    @Test
    void wholeRowReferencesAreFoundInJoinsAndParenthesisedJoins() {
        assertThat(refused("SELECT to_json(b) FROM a JOIN b ON a.id = b.id").rule())
                .isEqualTo(Violation.WHOLE_ROW);
        assertThat(refused("SELECT to_json(b) FROM (a JOIN b ON a.id = b.id)").rule())
                .isEqualTo(Violation.WHOLE_ROW);
        assertThat(guard.check("SELECT b.id FROM (a JOIN b ON a.id = b.id)")).isInstanceOf(GuardVerdict.Allowed.class);
        assertThat(guard.check("SELECT name FROM users u")).isInstanceOf(GuardVerdict.Allowed.class);
    }

    @Test
    void unbalancedParenthesesAreASyntaxRefusal() {
        assertThat(refused("SELECT (1").rule()).isEqualTo(Violation.SYNTAX);
        assertThat(refused("SELECT 1)").reason()).contains("unbalanced ')'");
    }

    @Test
    void emptyAndCommentOnlyStatementsAreRefused() {
        assertThat(refused("  ").rule()).isEqualTo(Violation.EMPTY);
        assertThat(refused("-- nothing").rule()).isEqualTo(Violation.EMPTY);
        assertThat(refused(";").rule()).isEqualTo(Violation.EMPTY);
    }
}
