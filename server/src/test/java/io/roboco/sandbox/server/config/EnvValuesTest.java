package io.roboco.sandbox.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvValuesTest {
    private static final String USE = "true (default) or false";

    @Test
    void aYesNoSettingTakesEitherSpellingInAnyCaseAndBlankIsTheDefault() {
        for (String yes : new String[] {"true", "1", "ON", " Yes "}) {
            assertThat(EnvValues.bool(Map.of("K", yes), "K", false, USE))
                    .as(yes)
                    .isTrue();
        }
        for (String no : new String[] {"false", "0", "Off", "NO"}) {
            assertThat(EnvValues.bool(Map.of("K", no), "K", true, USE)).as(no).isFalse();
        }
        assertThat(EnvValues.bool(Map.of(), "K", true, USE)).isTrue();
        assertThat(EnvValues.bool(Map.of("K", "  "), "K", null, USE)).isNull();
    }

    @Test
    void anythingElseIsRefusedNamingTheSettingAndWhatToUse() {
        assertThatThrownBy(() ->
                        EnvValues.bool(Map.of("ROBOCO_SANDBOX_READOPT", "maybe"), "ROBOCO_SANDBOX_READOPT", true, USE))
                .isInstanceOf(ConfigException.class)
                .hasMessage("ROBOCO_SANDBOX_READOPT='maybe' is not a boolean; use true (default) or false");
    }

    @Test
    void everyYesNoSettingOfTheServerReadsThroughIt() {
        assertThatThrownBy(() -> ServerConfig.fromEnv(Map.of("HOME", "/h", "ROBOCO_SANDBOX_DB_ENABLED", "sure")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_DB_ENABLED='sure' is not a boolean");
        assertThatThrownBy(() -> ServerConfig.fromEnv(Map.of("HOME", "/h", "ROBOCO_SANDBOX_READOPT", "sure")))
                .hasMessageContaining("ROBOCO_SANDBOX_READOPT='sure' is not a boolean");
        assertThatThrownBy(() -> ServerConfig.fromEnv(Map.of("HOME", "/h", "ROBOCO_SANDBOX_TEMPLATE_PHYSICAL", "sure")))
                .hasMessageContaining("ROBOCO_SANDBOX_TEMPLATE_PHYSICAL='sure' is not a boolean");
    }
}
