package io.roboco.sandbox.inspect.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.inspect.sql.ColumnPatterns;
import io.roboco.sandbox.inspect.sql.Violation;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ResolvedColumnsTest {
    private static final ColumnPatterns DENIED = ColumnPatterns.defaults();

    private static Optional<Violation> check(Map<String, Object> node) {
        return ResolvedColumns.check(List.of(Map.of("Plan", node)), DENIED);
    }

    @Test
    void aDeniedColumnPassedThroughBareIsAllowedForRedaction() {
        assertThat(check(Map.of(
                        "Node Type",
                        "Seq Scan",
                        "Relation Name",
                        "users",
                        "Alias",
                        "u",
                        "Output",
                        List.of("u.id", "u.name", "u.password_hash", "public.u.api_token"))))
                .isEmpty();
    }

    @Test
    void aWholeRowValueInAnyExpressionIsRefused() {
        for (String expression :
                List.of("u.*", "to_jsonb(u.*)", "(u.*)::text", "row_text(u.*)", "((u.*)::text || 'x'::text)")) {
            assertThat(check(Map.of("Node Type", "Seq Scan", "Output", List.of("u.id", expression))))
                    .as(expression)
                    .hasValueSatisfying(v -> assertThat(v.rule()).isEqualTo(Violation.WHOLE_ROW));
        }
        assertThat(check(Map.of("Node Type", "Seq Scan", "Filter", "((u.*)::text ~~ '%x%'::text)")))
                .hasValueSatisfying(v -> assertThat(v.rule()).isEqualTo(Violation.WHOLE_ROW));
    }

    @Test
    void aDeniedColumnComputedWithInAnExpressionAFilterOrASortKeyIsRefused() {
        assertThat(check(Map.of("Output", List.of("u.id", "md5(u.password_hash)"))))
                .hasValueSatisfying(v -> assertThat(v.rule()).isEqualTo(Violation.DENIED_COLUMN));
        assertThat(check(Map.of("Output", List.of("u.id"), "Filter", "(u.api_token = 'x'::text)")))
                .hasValueSatisfying(v -> assertThat(v.rule()).isEqualTo(Violation.DENIED_COLUMN));
        assertThat(check(Map.of("Node Type", "Sort", "Sort Key", List.of("u.password_hash"))))
                .hasValueSatisfying(v -> assertThat(v.rule()).isEqualTo(Violation.DENIED_COLUMN));
    }

    @Test
    void countStarLabelsAndLiteralsAreNotWholeRows() {
        assertThat(check(Map.of(
                        "Node Type",
                        "Aggregate",
                        "Output",
                        List.of("count(*)"),
                        "Filter",
                        "(u.name = 'a.*'::text)",
                        "Plans",
                        List.of(Map.of(
                                "Node Type", "Seq Scan", "Relation Name", "users", "Output", List.of("u.name"))))))
                .isEmpty();
    }
}
