package io.roboco.sandbox.manager;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.ServicePlan;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.testkit.StubEngine;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SandboxRequestTest {
    private final EngineRegistry registry = EngineRegistry.of(List.of(
            new StubEngine("postgres", Set.of("pg_trgm", "vector")), new StubEngine("redis", Set.of("search"))));
    private final ProvisionSettings settings = ProvisionSettings.defaults("test-instance");
    private final Project shop =
            new Project("shop", "Shop", List.of("postgres", "redis"), Map.of("postgres", List.of("pg_trgm")));

    private SandboxRequest.Validation validate(
            Project project, List<String> services, Map<String, List<String>> extensions) {
        return SandboxRequest.validate(registry, settings, "dev-1", project, services, extensions);
    }

    private static String refusal(SandboxRequest.Validation validation) {
        assertThat(validation).isInstanceOf(SandboxRequest.Validation.Invalid.class);
        return ((SandboxRequest.Validation.Invalid) validation).reason();
    }

    @Test
    void aValidRequestPlansTheWholeSetWithStandingAndPerCallFeatures() {
        SandboxRequest request = ((SandboxRequest.Validation.Valid) validate(
                        shop,
                        List.of("redis", "redis"),
                        Map.of("postgres", List.of("vector"), "redis", List.of("search"))))
                .request();

        assertThat(request.asked()).containsExactly("redis");
        assertThat(request.services()).containsExactly("postgres", "redis");
        assertThat(request.plans()).extracting(ServicePlan::service).containsExactly("postgres", "redis");
        assertThat(request.plan("postgres").featureNames()).containsExactly("pg_trgm", "vector");
        assertThat(request.plan("redis").featureNames()).containsExactly("search");
        assertThat(request.plan("postgres").image().image()).isEqualTo("stub/postgres:1");
    }

    @Test
    void noServicesNamedMeansTheWholeSetIsAsked() {
        SandboxRequest request = ((SandboxRequest.Validation.Valid) validate(shop, List.of(), Map.of())).request();
        assertThat(request.asked()).containsExactly("postgres", "redis");
    }

    @Test
    void refusesAServiceOutsideTheProjectsSetNamingTheSet() {
        assertThat(refusal(validate(shop, List.of("mongo"), Map.of())))
                .contains("'mongo'")
                .contains("allowed: postgres, redis");
    }

    @Test
    void refusesAPerCallFeatureOffTheAllowlistNamingTheAllowlist() {
        assertThat(refusal(validate(shop, List.of(), Map.of("redis", List.of("json")))))
                .isEqualTo("redis feature 'json' is not allowed; allowed: search");
    }

    @Test
    void refusesAStoredSetNamingAnEngineTheServerDoesNotOffer() {
        Project stale = new Project("shop", "Shop", List.of("postgres", "mysql"), Map.of());
        assertThat(refusal(validate(stale, List.of("postgres"), Map.of())))
                .contains("sandbox_services names 'mysql'")
                .contains("known: postgres, redis");
    }

    @Test
    void refusesAStoredStandingFeatureOffTheAllowlist() {
        Project stale = new Project("shop", "Shop", List.of("postgres"), Map.of("postgres", List.of("plpython3u")));
        assertThat(refusal(validate(stale, List.of(), Map.of())))
                .contains("sandbox_extensions")
                .contains("postgres feature 'plpython3u' is not allowed; allowed: pg_trgm, vector");
    }
}
