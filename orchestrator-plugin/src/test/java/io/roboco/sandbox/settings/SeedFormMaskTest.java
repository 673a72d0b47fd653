package io.roboco.sandbox.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.MaskRule;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.request.BadRequest;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A clone seed's {@code mask} in a project form: parsed, refused with what is wrong, written back, stored and read. */
class SeedFormMaskTest {
    @Test
    void aMaskIsReadIntoColumnsOfTheirSchemaAndWrittenBack() {
        Seed seed = SeedForm.parse(
                "postgres",
                Map.of(
                        "clone",
                        Map.of(
                                "url_env",
                                "SRC",
                                "data",
                                true,
                                "mask",
                                Map.of(
                                        "users.email",
                                        "fake_email",
                                        "billing.cards.number",
                                        "keep_last(4)",
                                        "users.note",
                                        Map.of("constant", "redacted")))));
        Seed.Clone clone = (Seed.Clone) seed;
        assertThat(clone.maxRowsPerTable()).isEqualTo(SeedForm.DEFAULT_ROWS_PER_TABLE);
        assertThat(clone.mask())
                .containsEntry("public.users.email", new MaskRule.FakeEmail())
                .containsEntry("billing.cards.number", new MaskRule.KeepLast(4))
                .containsEntry("public.users.note", new MaskRule.Constant("redacted"));
        Map<String, Object> json = SeedForm.toJson(seed);
        assertThat(json.toString()).contains("public.users.email=fake_email", "billing.cards.number=keep_last(4)");
        assertThat(SeedForm.fromStored(Map.of("postgres", json)).get("postgres"))
                .isEqualTo(seed);
        assertThat(seed.describe()).contains("3 masked column(s)");
    }

    @Test
    void refusesAnUnknownRuleAMalformedColumnAndAMaskWithoutData() {
        assertThatThrownBy(() -> parse(Map.of("users.email", "fake_mail"), true))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("sandbox_seed.postgres.clone.mask.users.email")
                .hasMessageContaining("unknown rule 'fake_mail'")
                .hasMessageContaining("nothing saved");
        assertThatThrownBy(() -> parse(Map.of("email", "hash"), true))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("table.column or schema.table.column");
        assertThatThrownBy(() -> parse(Map.of("users.card", "keep_last(65)"), true))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("n from 0 to 64");
        assertThatThrownBy(() -> parse(Map.of("users.email", "hash", "public.users.email", "null"), true))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("names public.users.email twice");
        assertThatThrownBy(() -> parse(Map.of("users.email", "hash"), false))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("copies none (data is false)");
        assertThatThrownBy(() -> SeedForm.parse(
                        "postgres", Map.of("clone", Map.of("url_env", "SRC", "data", true, "mask", "hash"))))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("must be an object of column to rule");
    }

    @Test
    void theSeedsDigestChangesWithItsMask() {
        Seed.Clone a = (Seed.Clone) parse(Map.of("users.email", "hash"), true);
        Seed.Clone b = (Seed.Clone) parse(Map.of("users.email", "fake_email"), true);
        assertThat(a).isNotEqualTo(b);
        assertThat(new Seed.Clone("SRC", 3)).isEqualTo(new Seed.Clone("SRC", 3, Map.of()));
    }

    private static Seed parse(Map<String, Object> mask, boolean data) {
        return SeedForm.parse("postgres", Map.of("clone", Map.of("url_env", "SRC", "data", data, "mask", mask)));
    }
}
