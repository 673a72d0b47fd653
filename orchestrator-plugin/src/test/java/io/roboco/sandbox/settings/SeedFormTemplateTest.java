package io.roboco.sandbox.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.template.DirectoryTemplateStore;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sandbox_seed {"template": …}} in a project form: a known template that restores into the project's major. */
class SeedFormTemplateTest {
    private static final EngineRegistry REGISTRY = EngineRegistry.defaults();
    private static final ProvisionSettings SETTINGS = ProvisionSettings.defaults("test")
            .withImages(Map.of("postgres", "roboco-sandbox/postgres:15"))
            .withMajorImages(Map.of("postgres", Map.of("17", "roboco-sandbox/postgres:17")));

    @TempDir
    Path dir;

    private TemplateStore templates;

    @BeforeEach
    void templates() throws Exception {
        templates = new DirectoryTemplateStore(dir);
        templates.save(
                new TemplateInfo("from-17", "shop", "sbx_1", "17", "17.12", 0, Instant.EPOCH, "d", List.of()),
                out -> out.write('x'),
                false);
        templates.save(
                new TemplateInfo("from-15", "shop", "sbx_2", "15", "15.14", 0, Instant.EPOCH, "d", List.of()),
                out -> out.write('x'),
                false);
    }

    private Project parse(String major, Object seed) {
        return ProjectForm.parse(
                "shop",
                Map.of(
                        "sandbox_services",
                        List.of("postgres"),
                        "sandbox_versions",
                        Map.of("postgres", major),
                        "sandbox_seed",
                        Map.of("postgres", seed)),
                REGISTRY,
                SETTINGS,
                templates);
    }

    @Test
    void aKnownTemplateOnItsMajorOrNewerIsAccepted() {
        assertThat(parse("17", Map.of("template", "from-15")).seedFor("postgres"))
                .isEqualTo(new Seed.Template("from-15"));
        assertThat(parse("17", Map.of("template", "from-17")).seedFor("postgres"))
                .isEqualTo(new Seed.Template("from-17"));
        assertThat(SeedForm.toJson(parse("15", Map.of("template", "from-15")).seeds()))
                .isEqualTo(Map.of("postgres", Map.of("template", "from-15")));
    }

    @Test
    void anUnknownTemplateIsRefusedNamingTheProjectsOwnOnly() throws Exception {
        templates.save(
                new TemplateInfo("others-secret", "rival", "sbx_3", "15", "15.14", 0, Instant.EPOCH, "d", List.of()),
                out -> out.write('x'),
                false);
        assertThatThrownBy(() -> parse("17", Map.of("template", "nope")))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("no template 'nope'")
                .hasMessageContaining("its templates: from-15, from-17")
                .hasMessageContaining("nothing saved")
                .message()
                .doesNotContain("others-secret");
    }

    @Test
    void anotherProjectsTemplateIsNotTheProjectsSeed() throws Exception {
        templates.save(
                new TemplateInfo("theirs", "rival", "sbx_3", "15", "15.14", 0, Instant.EPOCH, "d", List.of()),
                out -> out.write('x'),
                false);
        assertThatThrownBy(() -> parse("17", Map.of("template", "theirs")))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("project 'shop' has no template 'theirs'")
                .hasMessageContaining("copy");
    }

    @Test
    void aTemplateFromANewerMajorIsRefusedNamingBoth() {
        assertThatThrownBy(() -> parse("15", Map.of("template", "from-17")))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("saved from PostgreSQL 17")
                .hasMessageContaining("runs PostgreSQL 15");
    }

    @Test
    void aBadTemplateNameIsRefusedWhateverTheStore() {
        assertThatThrownBy(() -> parse("17", Map.of("template", "../etc")))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("must be a template name");
        assertThatCode(() -> ProjectForm.parse(
                        "shop",
                        Map.of(
                                "sandbox_services",
                                List.of("postgres"),
                                "sandbox_seed",
                                Map.of("postgres", Map.of("template", "x"))),
                        REGISTRY,
                        SETTINGS))
                .as("without a store to check against, the shape alone is checked")
                .doesNotThrowAnyException();
    }
}
