package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.server.config.ConfigException;
import io.roboco.sandbox.server.config.RestartSettings;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.FakeSettingsStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerStartTest {
    @TempDir
    Path dir;

    @Test
    void generatesTokensOnceWithMode0600AndShowsThemOnlyAtFirstStart() throws Exception {
        ServerConfig config =
                ServerConfig.defaults(dir.resolve("state")).withPort(0).withFlag(true);
        String firstConsole;
        String instance;
        String adminToken;
        try (TestServer first = new TestServer(config)) {
            firstConsole = first.console.toString();
            instance = first.server.instanceId();
            Path adminFile = dir.resolve("state/admin-token");
            adminToken = Files.readString(adminFile).strip();
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(adminFile)))
                    .isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("state/api-token"))))
                    .isEqualTo("rw-------");
            assertThat(first.api.send("GET", "/api/flags", adminToken, null).status())
                    .isEqualTo(200);
        }
        assertThat(firstConsole)
                .contains("admin token written to " + dir.resolve("state/admin-token") + ": " + adminToken);
        try (TestServer second = new TestServer(config)) {
            assertThat(second.console.toString()).isEmpty();
            assertThat(second.server.instanceId()).isEqualTo(instance);
            assertThat(second.api.send("GET", "/api/flags", adminToken, null).status())
                    .isEqualTo(200);
        }
    }

    @Test
    void withReadoptionOffCloseTearsDownLiveSandboxesAndIsIdempotent() {
        TestServer t = new TestServer(config(false));
        t.working("dev-1", "developer");
        t.api.verb("dev-1", "request_sandbox", "{}");
        assertThat(t.runtime.runningCount()).isEqualTo(2);
        t.close();
        t.close();
        assertThat(t.runtime.runningCount()).isZero();
        assertThat(t.store.sealedOf(t.server.instanceId()))
                .as("nothing is sealed with re-adoption off")
                .isEmpty();
    }

    @Test
    void aGracefulRestartKeepsTheSandboxAndTheNextCallIsACacheHitWithTheSameCredentials() {
        FakeContainerRuntime runtime = new FakeContainerRuntime();
        FakeSettingsStore store = new FakeSettingsStore();
        TestServer first = new TestServer(config(true), runtime, store);
        first.working("dev-1", "developer");
        ApiClient.Reply before = first.api.requestSandbox("dev-1");
        assertThat(before.ok()).as("%s", before).isTrue();
        first.close();
        assertThat(runtime.runningCount()).as("kept for re-adoption").isEqualTo(2);
        int started = runtime.startCount();

        try (TestServer second = new TestServer(config(true), runtime, store)) {
            ApiClient.Reply after = second.api.requestSandbox("dev-1");
            assertThat(after.ok()).as("%s", after).isTrue();
            assertThat(after.grants()).isEqualTo(before.grants());
            assertThat(runtime.startCount())
                    .as("containers created by the restart")
                    .isEqualTo(started);
            assertThat(Files.exists(dir.resolve("state").resolve(RestartSettings.DEFAULT_KEY_FILE)))
                    .isTrue();
        }
    }

    private ServerConfig config(boolean readopt) {
        return ServerConfig.defaults(dir.resolve("state"))
                .withPort(0)
                .withFlag(true)
                .withTokens(ApiClient.API_TOKEN, ApiClient.ADMIN_TOKEN)
                .withRestart(RestartSettings.defaults().withReadopt(readopt));
    }

    @Test
    void refusesImageOverrideForUnknownEngine() {
        ServerConfig config = ServerConfig.fromEnv(
                        Map.of("ROBOCO_SANDBOX_STATE_DIR", dir.toString(), "ROBOCO_SANDBOX_IMAGE_MYSQL", "mysql:8"))
                .withPort(0);
        Assertions.assertThatThrownBy(() -> new TestServer(config))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_IMAGE_MYSQL names no engine; known: mongo, postgres, redis");
    }
}
