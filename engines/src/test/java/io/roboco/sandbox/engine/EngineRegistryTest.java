package io.roboco.sandbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.postgres.PostgresEngine;
import io.roboco.sandbox.engine.redis.RedisEngine;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EngineRegistryTest {
    private final EngineRegistry registry = EngineRegistry.defaults();

    @Test
    void defaultsHoldPostgresRedisAndMongoInThatOrder() {
        assertThat(registry.all()).extracting(Engine::name).containsExactly("postgres", "redis", "mongo");
        assertThat(registry.require("postgres")).isInstanceOf(PostgresEngine.class);
        assertThat(registry.find("redis")).containsInstanceOf(RedisEngine.class);
    }

    @Test
    void unknownEngineErrorListsKnownNames() {
        assertThatThrownBy(() -> registry.require("mysql"))
                .isInstanceOf(UnknownNameException.class)
                .hasMessage("no engine 'mysql'; known: mongo, postgres, redis");
    }

    @Test
    void unknownEngineNameIsEchoedEscapedAndBounded() {
        assertThatThrownBy(() -> registry.require("pg\n\u0441" + "x".repeat(200)))
                .hasMessageContaining("pg\\u000a\\u0441")
                .hasMessageNotContaining("\n")
                .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(150));
    }

    @Test
    void duplicateEngineNamesAreRefused() {
        assertThatThrownBy(
                        () -> EngineRegistry.of(List.of(new PostgresEngine(), new RedisEngine(), new PostgresEngine())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'postgres' registered twice");
    }

    @Test
    void allowlistedFeaturesPass() {
        assertThatCode(() -> registry.requireFeatures(
                        "postgres", List.of("vector", "postgis", "pg_trgm", "citext", "uuid-ossp")))
                .doesNotThrowAnyException();
        assertThatCode(() -> registry.requireFeatures("redis", List.of("search", "json", "bloom")))
                .doesNotThrowAnyException();
        assertThatCode(() -> registry.requireFeatures("mongo", List.of())).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "plpython3u",
                "plperlu",
                "adminpack",
                "dblink",
                "file_fdw",
                "CITEXT",
                " citext",
                "citext ",
                "\"citext\"",
                "citext\"; DROP ROLE x; --",
                "citext;",
                "pg_trgm; SELECT 1",
                "uuid-ossp' OR '1'='1",
                "\u0441itext",
                "citеxt",
                "pg_trgm\u0000",
                "",
                "*",
                "vector CASCADE"
            })
    void postgresRefusesAnythingOffTheAllowlistAndNamesIt(String feature) {
        assertThatThrownBy(() -> registry.requireFeatures("postgres", List.of("citext", feature)))
                .isInstanceOf(UnknownNameException.class)
                .hasMessageEndingWith("is not allowed; allowed: citext, pg_trgm, postgis, uuid-ossp, vector");
    }

    @ParameterizedTest
    @ValueSource(strings = {"timeseries", "Search", "search ", "rejson", "../../tmp/evil.so", "/tmp/evil.so"})
    void redisRefusesModulesOffTheAllowlist(String feature) {
        assertThatThrownBy(() -> registry.requireFeatures("redis", List.of(feature)))
                .isInstanceOf(UnknownNameException.class)
                .hasMessageEndingWith("allowed: bloom, json, search");
    }

    @Test
    void mongoAllowsNoFeatures() {
        assertThatThrownBy(() -> registry.requireFeatures("mongo", List.of("search")))
                .isInstanceOf(UnknownNameException.class)
                .hasMessageEndingWith("allowed: none");
    }

    @Test
    void nullFeatureIsRefused() {
        assertThatThrownBy(() -> registry.requireFeatures("postgres", Arrays.asList((String) null)))
                .isInstanceOf(UnknownNameException.class);
    }

    @Test
    void theCoreAsksWhichEnginesOfferADataFeatureAndEveryEngineCheckpoints() {
        assertThat(registry.offering(Engine::seeds)).extracting(Engine::name).containsExactly("postgres");
        assertThat(registry.offering(Engine::dumps)).extracting(Engine::name).containsExactly("postgres");
        assertThat(registry.offering(Engine::checkpoints))
                .extracting(Engine::name)
                .containsExactly("postgres", "redis", "mongo");
        assertThat(registry.offering(Engine::schemaSnapshots))
                .extracting(Engine::name)
                .containsExactly("postgres");
        assertThat(registry.namesOffering(Engine::checkpoints)).isEqualTo("postgres or redis or mongo");
    }

    @Test
    void theFirstOfASetsServicesOfferingAFeatureIsFoundInRegistrationOrder() {
        assertThat(registry.firstOffering(List.of("redis", "postgres"), Engine::dumps))
                .map(Engine::name)
                .contains("postgres");
        assertThat(registry.firstOffering(List.of("redis", "mongo"), Engine::dumps))
                .isEmpty();
        assertThat(EngineRegistry.of(List.of(new RedisEngine())).namesOffering(Engine::schemaSnapshots))
                .isEqualTo("none");
    }
}
