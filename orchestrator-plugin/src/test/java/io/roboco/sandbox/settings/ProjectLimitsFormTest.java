package io.roboco.sandbox.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.runtime.Limits;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code sandbox_limits} in a project form: parsed, checked against the operator's maximums, resolved over the defaults. */
class ProjectLimitsFormTest {
    private static final EngineRegistry REGISTRY = EngineRegistry.defaults();
    private static final ProvisionSettings SETTINGS = ProvisionSettings.defaults("test");

    private static Project parse(Object limits) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("sandbox_services", List.of("postgres", "redis"));
        body.put("sandbox_limits", limits);
        return ProjectForm.parse("shop", body, REGISTRY, SETTINGS);
    }

    @Test
    void limitsWithinTheMaximumsAreKeptAndResolvedOverTheDefaults() {
        Project p = parse(Map.of(
                "postgres",
                Map.of("memory", "1g", "data_size", "512m", "cpus", 2),
                "redis",
                Map.of("memory", "768MB")));
        assertThat(p.limitsFor("postgres")).isEqualTo(new ServiceLimits(1L << 30, 512L << 20, 2_000_000_000L));
        Limits redis = p.limitsFor("redis").over(Limits.sandboxDefaults());
        assertThat(redis).isEqualTo(new Limits(768L << 20, 1_000_000_000L, 512, 256L << 20));
        assertThat(p.limitsFor("mongo")).isEqualTo(ServiceLimits.DEFAULTS);
        assertThat(ProjectForm.toJson(p).get("sandbox_limits"))
                .isEqualTo(Map.of(
                        "postgres",
                        Map.of("memory", "1g", "data_size", "512m", "cpus", 2L),
                        "redis",
                        Map.of("memory", "768m")));
    }

    @Test
    void overTheMaximumIsRefusedNamingTheMaximumAndItsSetting() {
        assertThatThrownBy(() -> parse(Map.of("postgres", Map.of("memory", "3g"))))
                .isInstanceOf(BadRequest.class)
                .hasMessage(
                        "'sandbox_limits.postgres.memory' 3g is over the operator's maximum 2g (ROBOCO_SANDBOX_MAX_MEMORY); nothing saved");
        assertThatThrownBy(() -> parse(Map.of("postgres", Map.of("memory", "2g", "data_size", "2g"))))
                .hasMessageContaining("1g (ROBOCO_SANDBOX_MAX_DATA_SIZE)");
        assertThatThrownBy(() -> parse(Map.of("postgres", Map.of("cpus", 4))))
                .hasMessageContaining("over the operator's maximum 2 CPUs (ROBOCO_SANDBOX_MAX_CPUS)");
        ProvisionSettings tight = SETTINGS.withMaxLimits(new Limits(768L << 20, 1_000_000_000L, 512, 256L << 20));
        Map<String, Object> body = Map.of(
                "sandbox_services", List.of("postgres"), "sandbox_limits", Map.of("postgres", Map.of("memory", "1g")));
        assertThatThrownBy(() -> ProjectForm.parse("shop", body, REGISTRY, tight))
                .hasMessageContaining("maximum 768m");
    }

    @Test
    void dataMustStayBelowTheMemoryItCountsAgainst() {
        assertThatThrownBy(() -> parse(Map.of("postgres", Map.of("data_size", "512m"))))
                .hasMessageContaining(
                        "data_size 512m must be below memory 512m (the data tmpfs counts against the memory limit)");
        assertThat(parse(Map.of("postgres", Map.of("data_size", "384m")))
                        .limitsFor("postgres")
                        .dataBytes())
                .isEqualTo(384L << 20);
    }

    @Test
    void badShapesAreRefusedNamingTheField() {
        assertThatThrownBy(() -> parse(Map.of("mongo", Map.of("memory", "1g"))))
                .hasMessageContaining("not in sandbox_services");
        assertThatThrownBy(() -> parse(Map.of("postgres", Map.of("swap", "1g"))))
                .hasMessageContaining(
                        "unknown field 'sandbox_limits.postgres.swap'; a service's limits take: memory, data_size, cpus");
        assertThatThrownBy(() -> parse(Map.of("postgres", Map.of("memory", "lots"))))
                .hasMessageContaining("not a size; use e.g. 512m or 1g");
        assertThatThrownBy(() -> parse(Map.of("postgres", Map.of("memory", "1m"))))
                .hasMessageContaining("below the minimum 64m");
        assertThatThrownBy(() -> parse(Map.of("postgres", Map.of("cpus", 0))))
                .hasMessageContaining("at least 0.01 CPUs");
        assertThatThrownBy(() -> parse(List.of("x"))).hasMessageContaining("'sandbox_limits' must be an object");
    }

    @Test
    void sizesReadAsDockerWritesThem() {
        assertThat(ByteSize.parse("512m")).isEqualTo(512L << 20);
        assertThat(ByteSize.parse("2GiB")).isEqualTo(2L << 30);
        assertThat(ByteSize.parse("768MB")).isEqualTo(768L << 20);
        assertThat(ByteSize.parse("4096")).isEqualTo(4096);
        assertThat(ByteSize.format(1L << 30)).isEqualTo("1g");
        assertThat(ByteSize.format(768L << 20)).isEqualTo("768m");
        assertThat(ByteSize.formatCpus(1_500_000_000L)).isEqualTo("1.5");
    }
}
