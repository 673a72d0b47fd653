package io.roboco.sandbox.engine.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.CloneMask;
import io.roboco.sandbox.engine.MaskRule;
import io.roboco.sandbox.engine.SeedException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A clone's copy plan under its mask: the masked columns' expressions go into the query run on the source, the denied
 * column without a rule and the rule naming no column refuse the seed naming the column, before any copy.
 */
class PostgresClonePlanTest {
    private static final List<PostgresClonePlan.Column> USERS = List.of(
            column("users", "id", "integer", false),
            column("users", "email", "text", true),
            column("users", "card_number", "character varying(19)", true),
            column("users", "domain", "text", true, true),
            column("notes", "body", "text", true));

    @Test
    void masksInTheSourceQueryAndCopiesTheRestAsItIs() throws SeedException {
        CloneMask mask = CloneMask.of(Map.of(
                "public.users.email", new MaskRule.FakeEmail(),
                "public.users.card_number", new MaskRule.KeepLast(4)));
        List<PostgresClonePlan.TableCopy> copies = PostgresClonePlan.plan(USERS, mask, 100, "s4lt");
        assertThat(copies)
                .extracting(PostgresClonePlan.TableCopy::table)
                .containsExactly("public.users", "public.notes");
        String users = copies.get(0).sourceQuery();
        assertThat(users)
                .startsWith(
                        "SELECT \"id\", ('user_' || left(md5('s4lt' || \"email\"::text), 16) || '@example.invalid')::text, ")
                .contains("right(\"card_number\"::text, 4)")
                .contains(")::character varying(19)")
                .endsWith(" FROM ONLY \"public\".\"users\" LIMIT 100")
                .doesNotContain("\"domain\"");
        assertThat(copies.get(0).target()).isEqualTo("\"public\".\"users\" (\"id\", \"email\", \"card_number\")");
        assertThat(copies.get(1).sourceQuery()).isEqualTo("SELECT \"body\" FROM ONLY \"public\".\"notes\" LIMIT 100");
    }

    @Test
    void aDeniedColumnWithoutARuleRefusesTheSeedNamingIt() {
        assertThatThrownBy(() -> PostgresClonePlan.plan(USERS, CloneMask.none(), 100, "s"))
                .isInstanceOf(SeedException.class)
                .hasMessageContaining("column public.users.card_number matches the denied-column pattern 'card_number'")
                .hasMessageContaining("nothing was copied");
    }

    @Test
    void aRuleNamingNoColumnOrATextRuleOnANumberRefusesTheSeed() {
        assertThatThrownBy(() -> PostgresClonePlan.plan(
                        USERS,
                        CloneMask.of(Map.of(
                                "public.users.card_number",
                                new MaskRule.Null(),
                                "public.users.emial",
                                new MaskRule.Hash())),
                        100,
                        "s"))
                .hasMessageContaining("mask rule for public.users.emial names no column")
                .hasMessageContaining("public.users has: id, email, card_number, domain");
        assertThatThrownBy(() -> PostgresClonePlan.plan(
                        USERS,
                        CloneMask.of(Map.of(
                                "public.users.card_number",
                                new MaskRule.Null(),
                                "public.users.id",
                                new MaskRule.Hash())),
                        100,
                        "s"))
                .hasMessageContaining("hash for public.users.id needs a text column, and it is integer");
    }

    @Test
    void everyRuleIsCastToTheColumnsType() {
        assertThat(PostgresClonePlan.expression(new MaskRule.Null(), "\"c\"", "integer", "s"))
                .isEqualTo("(NULL)::integer");
        assertThat(PostgresClonePlan.expression(new MaskRule.Constant("it's"), "\"c\"", "text", "s"))
                .isEqualTo("('it''s')::text");
        assertThat(PostgresClonePlan.expression(new MaskRule.Hash(), "\"c\"", "text", "s"))
                .isEqualTo("(md5('s' || \"c\"::text))::text");
    }

    @Test
    void readsTheCatalogAsPsqlPrintsItWithNulSeparators() throws SeedException {
        String out = "public\0users\0r\0id\0integer\0f\0f\0public\0users\0p\0email\0text\0t\0f\0\n";
        assertThat(PostgresClonePlan.columns(out))
                .containsExactly(
                        new PostgresClonePlan.Column("public", "users", "r", "id", "integer", false, false),
                        new PostgresClonePlan.Column("public", "users", "p", "email", "text", true, false));
        assertThatThrownBy(() -> PostgresClonePlan.columns("a\0b\0")).isInstanceOf(SeedException.class);
    }

    private static PostgresClonePlan.Column column(String table, String name, String type, boolean text) {
        return column(table, name, type, text, false);
    }

    private static PostgresClonePlan.Column column(
            String table, String name, String type, boolean text, boolean generated) {
        return new PostgresClonePlan.Column("public", table, "r", name, type, text, generated);
    }
}
