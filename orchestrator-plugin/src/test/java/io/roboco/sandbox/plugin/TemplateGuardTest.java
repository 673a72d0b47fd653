package io.roboco.sandbox.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.template.DirectoryTemplateStore;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Template seeds in the guard chain: unknown, foreign or too new for the project's major is refused before anything starts. */
class TemplateGuardTest {
    @TempDir
    Path dir;

    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final InMemorySettingsStore store = new InMemorySettingsStore();
    private final EngineRegistry registry = EngineRegistry.defaults();
    private final ProvisionSettings settings = ProvisionSettings.defaults("test")
            .withImages(Map.of("postgres", "roboco-sandbox/postgres:15"))
            .withMajorImages(Map.of("postgres", Map.of("17", "roboco-sandbox/postgres:17")));
    private SandboxPlugin plugin;

    @BeforeEach
    void templates() throws Exception {
        DirectoryTemplateStore templates = new DirectoryTemplateStore(dir);
        ServiceProvisioner provisioner =
                new ServiceProvisioner(runtime, settings, SecretSource.secure(), Clock.systemUTC(), templates);
        plugin = new SandboxPlugin(
                registry,
                new SandboxManager(registry, provisioner, Clock.systemUTC()),
                store,
                true,
                OrchestratorHandle.running(),
                Clock.systemUTC());
        templates.save(
                new TemplateInfo("shop-17", "shop", "sbx_1", "17", "17.12", 0, Instant.EPOCH, "d", List.of()),
                out -> out.write('x'),
                false);
        templates.save(
                new TemplateInfo("other-15", "other", "sbx_2", "15", "15.14", 0, Instant.EPOCH, "d", List.of()),
                out -> out.write('x'),
                false);
    }

    @AfterEach
    void close() {
        plugin.close();
    }

    private SandboxDecision request(Project project, String template) throws InterruptedException {
        store.saveProject(project);
        store.saveAgent(new Agent("dev-1", "developer", project.id(), "task-1"));
        return plugin.requestSandbox("dev-1", store.findAgent("dev-1"), null, null, null, template);
    }

    private static Project on(String major, Seed seed) {
        return new Project(
                "shop",
                "Shop",
                List.of("postgres"),
                Map.of(),
                Map.of("postgres", major),
                seed == null ? Map.of() : Map.of("postgres", seed));
    }

    @Test
    void aProjectSeedFromANewerMajorIsRefusedNamingBothAndNothingStarts() throws Exception {
        SandboxDecision decision = request(on("15", new Seed.Template("shop-17")), null);
        assertThat(decision).isInstanceOfSatisfying(SandboxDecision.Refused.class, r -> {
            assertThat(r.retryable()).isFalse();
            assertThat(r.reason())
                    .contains(
                            "template 'shop-17' was saved from PostgreSQL 17",
                            "runs PostgreSQL 15",
                            "sandbox_versions to {\"postgres\":\"17\"}");
        });
        assertThat(runtime.startCount()).isZero();
    }

    @Test
    void anUnknownProjectSeedIsRefusedNamingOnlyTheProjectsOwnTemplates() throws Exception {
        assertThat(request(on("17", new Seed.Template("gone")), null))
                .isInstanceOfSatisfying(
                        SandboxDecision.Refused.class,
                        r -> assertThat(r.reason())
                                .contains(
                                        "template 'gone'",
                                        "is not one of the project's templates",
                                        "its templates: shop-17")
                                .doesNotContain("other-15"));
        assertThat(request(on("17", new Seed.Template("other-15")), null))
                .as("another project's template is not the seed's")
                .isInstanceOfSatisfying(
                        SandboxDecision.Refused.class,
                        r -> assertThat(r.reason())
                                .contains("template 'other-15'", "is not one of the project's templates"));
        assertThat(runtime.startCount()).isZero();
    }

    @Test
    void aPerCallTemplateMustBeOneOfTheProjectsOwn() throws Exception {
        assertThat(request(on("17", null), "other-15"))
                .isInstanceOfSatisfying(
                        SandboxDecision.Refused.class,
                        r -> assertThat(r.reason())
                                .contains("project 'shop' has no template 'other-15'", "its templates: shop-17"));
        assertThat(request(on("17", null), "nope"))
                .isInstanceOfSatisfying(
                        SandboxDecision.Refused.class,
                        r -> assertThat(r.reason())
                                .contains("no template 'nope'")
                                .doesNotContain("other-15"));
        assertThat(request(on("15", null), "shop-17"))
                .as("per call, the major check still applies")
                .isInstanceOfSatisfying(
                        SandboxDecision.Refused.class,
                        r -> assertThat(r.reason()).contains("saved from PostgreSQL 17"));
        assertThat(runtime.startCount()).isZero();
    }

    @Test
    void aTemplateOnItsOwnMajorOrNewerPassesTheGuards() {
        Guards guards = new Guards(registry, settings, plugin::templates);
        assertThat(guards.allowed("dev-1", on("17", new Seed.Template("shop-17")), List.of(), Map.of()))
                .isInstanceOf(SandboxRequest.Validation.Valid.class);
        Project other = new Project(
                "other",
                "Other",
                List.of("postgres"),
                Map.of(),
                Map.of("postgres", "17"),
                Map.of("postgres", new Seed.Template("other-15")));
        assertThat(guards.allowed("dev-1", other, List.of(), Map.of()))
                .as("15 restores into 17")
                .isInstanceOf(SandboxRequest.Validation.Valid.class);
    }
}
