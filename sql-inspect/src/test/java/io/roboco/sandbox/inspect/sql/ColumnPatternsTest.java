package io.roboco.sandbox.inspect.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ColumnPatternsTest {

    @Test
    void defaultsArePgscoutsListMatchedCaseInsensitivelyOnWholeNames() {
        ColumnPatterns p = ColumnPatterns.defaults();
        assertThat(p.globs())
                .containsExactly(
                        "*password*", "passwd", "ssn", "*secret*", "*api_key*", "*token*", "card_number", "cvv");
        assertThat(p.match("Password_Hash")).contains("*password*");
        assertThat(p.match("refresh_token")).contains("*token*");
        assertThat(p.denies("SSN")).isTrue();
        assertThat(p.denies("ssn_last4")).isFalse();
        assertThat(p.denies("name")).isFalse();
    }

    @Test
    void questionMarkMatchesOneCharacter() {
        assertThat(ColumnPatterns.of(List.of("pin?")).denies("pin1")).isTrue();
        assertThat(ColumnPatterns.of(List.of("pin?")).denies("pin12")).isFalse();
    }

    @Test
    void malformedPatternsFailClosedNamingThePattern() {
        assertThatThrownBy(() -> ColumnPatterns.of(List.of("ok", " ")))
                .hasMessageContaining("denied column pattern ' '");
        assertThatThrownBy(() -> ColumnPatterns.of(List.of("*"))).hasMessageContaining("'*' is not a usable glob");
        assertThatThrownBy(() -> ColumnPatterns.of(List.of("a.b"))).hasMessageContaining("'a.b'");
        assertThatThrownBy(() -> ColumnPatterns.of(null)).hasMessageContaining("a list is required");
    }
}
