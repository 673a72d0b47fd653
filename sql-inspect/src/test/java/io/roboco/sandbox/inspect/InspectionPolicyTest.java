package io.roboco.sandbox.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class InspectionPolicyTest {

    @Test
    void defaultsFollowPgscout() {
        InspectionPolicy p = InspectionPolicy.defaults();
        assertThat(p.maxRows()).isEqualTo(200);
        assertThat(p.statementTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(p.allowExplainAnalyze()).isFalse();
        assertThat(p.deniedColumns().globs()).contains("*password*", "*token*", "ssn");
    }

    @Test
    void outOfRangeSettingsFailClosedNamingTheSetting() {
        InspectionPolicy p = InspectionPolicy.defaults();
        assertThatThrownBy(() -> p.withMaxRows(0)).hasMessageContaining("max_rows must be between 1 and 10000, got 0");
        assertThatThrownBy(() -> p.withBytes(4096, 8192)).hasMessageContaining("max_cell_bytes");
        assertThatThrownBy(() -> p.withStatementTimeout(Duration.ofMinutes(10)))
                .hasMessageContaining("statement_timeout");
        assertThatThrownBy(() -> p.withDeniedColumns(List.of(""))).hasMessageContaining("denied column pattern ''");
    }

    @Test
    void theTargetNeverPrintsThePassword() {
        assertThat(new PostgresTarget("127.0.0.1", 5432, "db", "agent", "s3cret").toString())
                .doesNotContain("s3cret")
                .contains("<redacted>");
    }
}
