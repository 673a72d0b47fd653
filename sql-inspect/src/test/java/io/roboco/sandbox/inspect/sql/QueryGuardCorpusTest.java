package io.roboco.sandbox.inspect.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/** The guard alone against both corpora: every bypass refused for the expected rule with a reason, every legitimate query allowed. */
class QueryGuardCorpusTest {
    private static final QueryGuard GUARD = new QueryGuard(ColumnPatterns.defaults(), false, 20_000);
    static final List<Corpora.Attempt> BYPASS = Corpora.BYPASS;
    static final List<String> LEGITIMATE = Corpora.LEGITIMATE;

    @Test
    void bypassCorpusHasAtLeastSixtyAttemptsAcrossTheNamedClasses() {
        Map<String, Long> byCategory = BYPASS.stream()
                .collect(Collectors.groupingBy(Corpora.Attempt::category, TreeMap::new, Collectors.counting()));
        System.out.println("[figure] bypass corpus: " + BYPASS.size() + " attempts " + byCategory
                + "; legitimate corpus: " + LEGITIMATE.size());
        assertThat(BYPASS).hasSizeGreaterThanOrEqualTo(60);
        assertThat(byCategory.keySet())
                .contains(
                        "comments",
                        "quotes",
                        "dollar bodies",
                        "E'' escapes",
                        "multi-statement",
                        "data-modifying CTE",
                        "SELECT INTO",
                        "row locks",
                        "set_config",
                        "pg_sleep",
                        "commit chaining",
                        "whole row");
    }

    @ParameterizedTest(name = "{0}")
    @FieldSource("BYPASS")
    void everyBypassAttemptIsRefusedForItsRuleWithAReason(Corpora.Attempt attempt) {
        GuardVerdict verdict = GUARD.check(attempt.sql());
        assertThat(verdict).as(attempt.sql()).isInstanceOf(GuardVerdict.Refused.class);
        GuardVerdict.Refused refused = (GuardVerdict.Refused) verdict;
        assertThat(refused.violations())
                .extracting(Violation::rule)
                .as(refused.reason())
                .contains(attempt.rule());
        assertThat(refused.violations()).allSatisfy(v -> assertThat(v.reason()).hasSizeGreaterThan(30));
    }

    @ParameterizedTest(name = "{0}")
    @FieldSource("LEGITIMATE")
    void everyLegitimateQueryIsAllowed(String sql) {
        GuardVerdict verdict = GUARD.check(sql);
        assertThat(verdict)
                .as(() -> verdict instanceof GuardVerdict.Refused r ? r.reason() : "")
                .isInstanceOf(GuardVerdict.Allowed.class);
    }
}
