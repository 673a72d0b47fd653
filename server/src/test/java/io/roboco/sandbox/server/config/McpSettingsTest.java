package io.roboco.sandbox.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The MCP server's settings fail closed: unknown names and malformed values stop the start. */
class McpSettingsTest {
    @Test
    void defaultsWhenNothingIsSet() {
        McpSettings s = McpSettings.fromEnv(Map.of("HOME", "/root"));
        assertThat(s.rowCap()).isEqualTo(200);
        assertThat(s.url(7070)).isEqualTo("http://127.0.0.1:7070/mcp");
        assertThat(s.allowedHosts()).containsExactly("127.0.0.1:*", "localhost:*", "[::1]:*");
    }

    @Test
    void readsEverySetting() {
        McpSettings s = McpSettings.fromEnv(Map.of(
                "ROBOCO_SANDBOX_MCP_ROW_CAP",
                "25",
                "ROBOCO_SANDBOX_MCP_URL",
                "http://sandbox.internal:7070/mcp",
                "ROBOCO_SANDBOX_MCP_ALLOWED_HOSTS",
                "sandbox.internal:7070, 127.0.0.1:*",
                "ROBOCO_SANDBOX_MCP_TOKEN",
                "the bridge's, ignored by the server"));
        assertThat(s.rowCap()).isEqualTo(25);
        assertThat(s.url(1234)).isEqualTo("http://sandbox.internal:7070/mcp");
        assertThat(s.allowedHosts()).isEqualTo(List.of("sandbox.internal:7070", "127.0.0.1:*"));
    }

    @Test
    void anUnknownMcpSettingIsRefusedNotIgnored() {
        assertThatThrownBy(() -> ServerConfig.fromEnv(Map.of("HOME", "/root", "ROBOCO_SANDBOX_MCP_ROWCAP", "10")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_MCP_ROWCAP")
                .hasMessageContaining("ROBOCO_SANDBOX_MCP_ROW_CAP");
        assertThatThrownBy(() -> McpSettings.fromEnv(Map.of("ROBOCO_SANDBOX_MCP_READ_WRITE", "true")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("refused rather than ignored");
    }

    @Test
    void malformedValuesAreRefusedWithTheSettingNamed() {
        assertThatThrownBy(() -> McpSettings.fromEnv(Map.of("ROBOCO_SANDBOX_MCP_ROW_CAP", "lots")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("ROBOCO_SANDBOX_MCP_ROW_CAP='lots'");
        assertThatThrownBy(() -> McpSettings.fromEnv(Map.of("ROBOCO_SANDBOX_MCP_ROW_CAP", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("1-10000");
        assertThatThrownBy(() -> McpSettings.fromEnv(Map.of("ROBOCO_SANDBOX_MCP_ROW_CAP", "10001")))
                .isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> McpSettings.fromEnv(Map.of("ROBOCO_SANDBOX_MCP_URL", "ftp://x/mcp")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_MCP_URL");
        assertThatThrownBy(() -> McpSettings.fromEnv(Map.of("ROBOCO_SANDBOX_MCP_URL", "http://u:p@x/mcp")))
                .isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> McpSettings.fromEnv(Map.of("ROBOCO_SANDBOX_MCP_ALLOWED_HOSTS", "a,,b")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_MCP_ALLOWED_HOSTS");
        assertThatThrownBy(() -> McpSettings.fromEnv(Map.of("ROBOCO_SANDBOX_MCP_ALLOWED_HOSTS", "http://x/")))
                .isInstanceOf(ConfigException.class);
        assertThatThrownBy(
                        () -> McpSettings.fromEnv(Map.of("ROBOCO_SANDBOX_MCP_URL", "http://sandbox.internal:7070/mcp")))
                .as("an address the Host check would refuse")
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sandbox.internal:7070")
                .hasMessageContaining("ROBOCO_SANDBOX_MCP_ALLOWED_HOSTS");
        assertThat(McpSettings.fromEnv(Map.of("ROBOCO_SANDBOX_MCP_URL", "http://localhost:7070/mcp"))
                        .url(1))
                .isEqualTo("http://localhost:7070/mcp");
    }
}
