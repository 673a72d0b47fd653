package io.roboco.sandbox.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.runtime.LogCap;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContainerLogSettingsTest {
    private static final Map<String, String> HOME = Map.of("HOME", "/home/op");

    @Test
    void unsetMeansTenMegabytesTimesTwoFiles() {
        assertThat(ServerConfig.fromEnv(HOME).containerLogs()).isEqualTo(LogCap.defaults());
        assertThat(ServerConfig.defaults(Path.of("/tmp/x")).containerLogs()).isEqualTo(new LogCap(10L << 20, 2));
    }

    @Test
    void readsSizeAndFiles() {
        ServerConfig c = ServerConfig.fromEnv(Map.of(
                "HOME",
                "/home/op",
                "ROBOCO_SANDBOX_CONTAINER_LOG_MAX_SIZE",
                "512k",
                "ROBOCO_SANDBOX_CONTAINER_LOG_MAX_FILES",
                "5"));
        assertThat(c.containerLogs()).isEqualTo(new LogCap(512L << 10, 5));
    }

    @Test
    void refusesWhatIsNotACapNamingTheSetting() {
        assertThatThrownBy(() ->
                        ServerConfig.fromEnv(Map.of("HOME", "/h", "ROBOCO_SANDBOX_CONTAINER_LOG_MAX_SIZE", "lots")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_CONTAINER_LOG_MAX_SIZE: 'lots' is not a size");
        assertThatThrownBy(
                        () -> ServerConfig.fromEnv(Map.of("HOME", "/h", "ROBOCO_SANDBOX_CONTAINER_LOG_MAX_SIZE", "1k")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("at least 64 KB");
        assertThatThrownBy(
                        () -> ServerConfig.fromEnv(Map.of("HOME", "/h", "ROBOCO_SANDBOX_CONTAINER_LOG_MAX_FILES", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("1-100 files");
        assertThatThrownBy(() ->
                        ServerConfig.fromEnv(Map.of("HOME", "/h", "ROBOCO_SANDBOX_CONTAINER_LOG_MAX_FILES", "two")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_CONTAINER_LOG_MAX_FILES='two' is not a whole number");
    }
}
