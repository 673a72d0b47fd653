package io.roboco.sandbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchemaDiffTest {
    private static SchemaObject column(String name, String type, String nullable) {
        return SchemaObject.of("column", name, Map.of("type", type, "nullable", nullable));
    }

    private static SchemaDigest digest(SchemaObject... objects) {
        return SchemaDigest.of("17.12", List.of("public"), List.of(objects));
    }

    @Test
    void fingerprintsDependOnEveryAttributeAndNothingElse() {
        assertThat(column("public.t.a", "int", "yes").fingerprint())
                .isEqualTo(column("public.t.a", "int", "yes").fingerprint())
                .isNotEqualTo(column("public.t.a", "bigint", "yes").fingerprint())
                .isNotEqualTo(column("public.t.b", "int", "yes").fingerprint())
                .hasSize(16);
    }

    @Test
    void reportsAddedRemovedAndWhatChanged() {
        SchemaDigest before = digest(column("public.t.a", "int", "yes"), column("public.t.b", "text", "yes"));
        SchemaDigest after = digest(column("public.t.a", "bigint", "no"), column("public.t.c", "text", "yes"));
        SchemaDiff diff = SchemaDiff.between(before, after);
        assertThat(diff.added()).containsExactly(new SchemaDiff.ObjectRef("column", "public.t.c"));
        assertThat(diff.removed()).containsExactly(new SchemaDiff.ObjectRef("column", "public.t.b"));
        assertThat(diff.changed())
                .singleElement()
                .satisfies(c -> assertThat(c.attributes())
                        .containsEntry("type", new SchemaDiff.Values("int", "bigint"))
                        .containsEntry("nullable", new SchemaDiff.Values("yes", "no")));
        assertThat(before.counts()).containsEntry("column", 2).containsEntry("table", 0);
        assertThat(before.digest()).isNotEqualTo(after.digest());
    }

    @Test
    void theSameSchemaDiffsEmptyAndDigestsEqual() {
        SchemaDigest a = digest(column("public.t.a", "int", "yes"));
        SchemaDigest b = digest(column("public.t.a", "int", "yes"));
        assertThat(SchemaDiff.between(a, b).isEmpty()).isTrue();
        assertThat(a.digest()).isEqualTo(b.digest());
    }

    @Test
    void refusesToCompareDifferentDigestFormats() {
        SchemaDigest a = digest();
        SchemaDigest old = new SchemaDigest(0, a.postgresVersion(), a.schemas(), a.counts(), a.objects(), a.digest());
        assertThatThrownBy(() -> SchemaDiff.between(old, a))
                .hasMessageContaining("format 0")
                .hasMessageContaining("take a new snapshot");
    }
}
