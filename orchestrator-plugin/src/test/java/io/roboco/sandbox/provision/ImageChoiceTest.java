package io.roboco.sandbox.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.engine.postgres.PostgresEngine;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ImageChoiceTest {
    private final PostgresEngine postgres = new PostgresEngine();
    private final ProvisionSettings production = ProvisionSettings.defaults("test");
    private final ProvisionSettings local = production
            .withImages(Map.of("postgres", "roboco-sandbox/postgres:15"))
            .withMajorImages(Map.of("postgres", Map.of("17", "roboco-sandbox/postgres:17")));

    @Test
    void noMajorMeansTheConfiguredDefaultImage() {
        ImageChoice choice = local.choose(postgres, null);
        assertThat(choice.image()).isEqualTo("roboco-sandbox/postgres:15");
        assertThat(choice.major()).isEqualTo("15");
        assertThat(choice.requested()).isEmpty();
        assertThat(production.choose(postgres, "").image()).isEqualTo("postgres:16-alpine");
    }

    @Test
    void aMajorUsesItsConfiguredImageThenTheDefaultOfTheSameMajorThenTheProductionImage() {
        assertThat(local.choose(postgres, "17").image()).isEqualTo("roboco-sandbox/postgres:17");
        assertThat(local.choose(postgres, "15").image()).isEqualTo("roboco-sandbox/postgres:15");
        assertThat(local.choose(postgres, "16").image()).isEqualTo("postgres:16-alpine");
        assertThat(production.choose(postgres, "17").image()).isEqualTo("postgres:17-alpine");
    }

    @Test
    void anUnknownMajorIsRefusedNamingTheKnownOnes() {
        assertThatThrownBy(() -> local.choose(postgres, "12"))
                .isInstanceOf(UnknownNameException.class)
                .hasMessageContaining("no major '12'")
                .hasMessageContaining("15, 16, 17");
    }

    @Test
    void majorsOfferingAFeatureFollowTheirImages() {
        assertThat(local.majorsOffering(postgres, "vector")).containsExactly("17");
        assertThat(local.majorsOffering(postgres, "postgis")).containsExactly("15", "17");
        assertThat(production.majorsOffering(postgres, "vector")).isEmpty();
        assertThat(local.choose(postgres, "15").features()).doesNotContain("vector");
    }

    @Test
    void poolKeysDifferExactlyWhenImagesDo() {
        assertThat(local.choose(postgres, "15").poolKey())
                .isEqualTo(local.choose(postgres, null).poolKey());
        assertThat(local.choose(postgres, "17").poolKey())
                .isNotEqualTo(local.choose(postgres, null).poolKey());
    }
}
