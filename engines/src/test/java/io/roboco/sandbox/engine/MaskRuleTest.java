package io.roboco.sandbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The mask rules' syntax as a project writes it, and the clone mask's column keys and denied patterns. */
class MaskRuleTest {
    @Test
    void readsEveryRuleAndWritesItBackTheSame() {
        for (Object raw :
                List.of("null", "hash", "fake_email", "keep_last(4)", "keep_last(0)", Map.of("constant", "x"))) {
            assertThat(MaskRule.parse(raw).json()).isEqualTo(raw);
        }
        assertThat(MaskRule.parse("keep_last( 4 )")).isEqualTo(new MaskRule.KeepLast(4));
        assertThat(MaskRule.parse(Map.of("constant", "it's \\ ok"))).isEqualTo(new MaskRule.Constant("it's \\ ok"));
        assertThat(MaskRule.parse("hash").needsText()).isTrue();
        assertThat(MaskRule.parse("null").needsText()).isFalse();
    }

    @Test
    void refusesAnUnknownRuleNamingItAndTheRulesThereAre() {
        assertThatThrownBy(() -> MaskRule.parse("fake_mail"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown rule 'fake_mail'")
                .hasMessageContaining("null, hash, fake_email, keep_last(n)");
        for (Object bad : List.of("keep_last(65)", "keep_last(-1)", "keep_last()", "keep_last(4", "HASH", "")) {
            assertThatThrownBy(() -> MaskRule.parse(bad)).as("%s", bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> MaskRule.parse(4)).hasMessageContaining("a rule is a string");
        assertThatThrownBy(() -> MaskRule.parse(null)).hasMessageContaining("a rule is a string");
        assertThatThrownBy(() -> MaskRule.parse(Map.of("constant", 4)))
                .hasMessageContaining("{\"constant\": \"text\"}");
        assertThatThrownBy(() -> MaskRule.parse(Map.of("constant", "a", "x", "b")))
                .hasMessageContaining("{\"constant\": \"text\"}");
        assertThatThrownBy(() -> MaskRule.parse(Map.of("constant", "x".repeat(MaskRule.MAX_CONSTANT + 1))))
                .hasMessageContaining("at most");
        assertThatThrownBy(() -> MaskRule.parse(Map.of("constant", "a\0b"))).hasMessageContaining("NUL");
    }

    @Test
    void aColumnIsTableDotColumnInPublicOrSchemaDotTableDotColumn() {
        assertThat(CloneMask.columnKey("users.email")).isEqualTo("public.users.email");
        assertThat(CloneMask.columnKey("billing.cards.number")).isEqualTo("billing.cards.number");
        for (String bad :
                new String[] {"email", "a.b.c.d", "users.", ".email", "users.e-mail", "users.\"x\"", "1users.x"}) {
            assertThatThrownBy(() -> CloneMask.columnKey(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> CloneMask.columnKey(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void deniedPatternsAreInspectionsGlobsMatchedCaseInsensitivelyOnWholeNames() {
        CloneMask mask = CloneMask.none();
        assertThat(mask.deniedBy("card_number")).contains("card_number");
        assertThat(mask.deniedBy("Password_Hash")).contains("*password*");
        assertThat(mask.deniedBy("github_token")).contains("*token*");
        assertThat(mask.deniedBy("email")).isEmpty();
        assertThat(mask.deniedBy("card_numbers")).isEmpty();
        assertThat(new CloneMask(Map.of(), List.of("e?ail")).deniedBy("EMAIL")).contains("e?ail");
    }
}
