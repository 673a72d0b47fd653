package io.roboco.sandbox.engine.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.engine.redis.RedisEngine;
import org.junit.jupiter.api.Test;

class PostgresImagesTest {
    private final PostgresEngine engine = new PostgresEngine();

    @Test
    void knowsItsMajorsAndTheirProductionImages() {
        assertThat(engine.majors()).containsExactly("15", "16", "17");
        assertThat(engine.defaultImage("17")).isEqualTo("postgres:17-alpine");
        assertThat(engine.defaultImage("16")).isEqualTo(engine.defaultImage());
        assertThatThrownBy(() -> engine.defaultImage("9"))
                .isInstanceOf(UnknownNameException.class)
                .hasMessageContaining("no major '9'")
                .hasMessageContaining("known: 15, 16, 17");
    }

    @Test
    void readsTheMajorFromKnownImageReferences() {
        assertThat(engine.majorOf("roboco-sandbox/postgres:17")).contains("17");
        assertThat(engine.majorOf("postgres:16-alpine")).contains("16");
        assertThat(engine.majorOf("postgres:15.8")).contains("15");
        assertThat(engine.majorOf("docker.io/library/postgres:17-bookworm")).contains("17");
        assertThat(engine.majorOf("pgvector/pgvector:pg17")).contains("17");
        assertThat(engine.majorOf("postgis/postgis:16-3.5")).contains("16");
        assertThat(engine.majorOf("postgres:latest")).isEmpty();
        assertThat(engine.majorOf("acme/pg:17")).isEmpty();
    }

    @Test
    void localImagesOfferPostgisAndPgvectorFrom17On() {
        assertThat(engine.imageFeatures("roboco-sandbox/postgres:15"))
                .containsExactlyInAnyOrder("pg_trgm", "citext", "uuid-ossp", "postgis");
        assertThat(engine.imageFeatures("roboco-sandbox/postgres:17"))
                .containsExactlyInAnyOrderElementsOf(engine.features());
    }

    @Test
    void officialImagesOfferContribOnlyAndFamilyImagesTheirExtension() {
        assertThat(engine.imageFeatures("postgres:17-alpine"))
                .containsExactlyInAnyOrder("pg_trgm", "citext", "uuid-ossp");
        assertThat(engine.imageFeatures("pgvector/pgvector:pg16"))
                .contains("vector")
                .doesNotContain("postgis");
        assertThat(engine.imageFeatures("postgis/postgis:17-3.5"))
                .contains("postgis")
                .doesNotContain("vector");
    }

    @Test
    void anUnknownImageGetsTheAllowlistAndNeverMore() {
        assertThat(engine.imageFeatures("acme/pg-everything:1")).isEqualTo(engine.features());
        for (String image :
                new String[] {"roboco-sandbox/postgres:17", "acme/x:1", "pgvector/pgvector:pg17", "postgres:16-alpine"
                }) {
            assertThat(engine.features()).containsAll(engine.imageFeatures(image));
        }
    }

    @Test
    void enginesWithoutMajorsOfferNoChoice() {
        Engine redis = new RedisEngine();
        assertThat(redis.majors()).isEmpty();
        assertThatThrownBy(() -> redis.defaultImage("7"))
                .isInstanceOf(UnknownNameException.class)
                .hasMessageContaining("known: none");
        assertThat(redis.imageFeatures("redis:8-alpine")).isEqualTo(redis.features());
    }
}
