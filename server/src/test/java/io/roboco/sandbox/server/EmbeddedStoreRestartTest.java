package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server over the real embedded store: settings and the stored flag survive a restart, which makes the flag effective. */
@SuppressWarnings("unchecked")
class EmbeddedStoreRestartTest {
    @TempDir
    Path dir;

    @Test
    void storedFlagBecomesEffectiveAfterRestartAndProjectsPersist() {
        ServerConfig config =
                ServerConfig.defaults(dir).withPort(0).withTokens(ApiClient.API_TOKEN, ApiClient.ADMIN_TOKEN);
        try (TestServer first = new TestServer(config, JdbcSettingsStore.embedded(dir))) {
            first.api.admin("PUT", "/api/projects/shop", "{\"sandbox_services\":[\"postgres\"]}");
            Map<String, Object> flag = first.api
                    .admin("PUT", "/api/flags/ROBOCO_SANDBOX_DB_ENABLED", "{\"enabled\":true}")
                    .json();
            assertThat(flag).containsEntry("effective", false).containsEntry("pending_restart", true);
        }
        try (TestServer second = new TestServer(config, JdbcSettingsStore.embedded(dir))) {
            Map<String, Object> flag = (Map<String, Object>)
                    second.api.admin("GET", "/api/flags", null).json().get("ROBOCO_SANDBOX_DB_ENABLED");
            assertThat(flag)
                    .containsEntry("stored", true)
                    .containsEntry("effective", true)
                    .containsEntry("pending_restart", false);
            assertThat((List<Object>) second.api
                            .admin("GET", "/api/projects", null)
                            .json()
                            .get("projects"))
                    .hasSize(1);
            second.working("dev-1", "developer");
            assertThat(second.api.verb("dev-1", "request_sandbox", "{}").json()).containsEntry("ok", true);
        }
    }
}
