package io.roboco.sandbox.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

class ServerStartTest {
    @TempDir
    Path dir;

    @Test
    void generatesTokensOnceWithMode0600AndShowsThemOnlyAtFirstStart() throws Exception {
        ServerConfig config = ServerConfig.defaults(dir.resolve("state")).withPort(0).withFlag(true);
        String firstConsole;
        String instance;
        String adminToken;
        try (TestServer first = new TestServer(config)) {
            firstConsole = first.console.toString();
            instance = first.server.instanceId();
            Path adminFile = dir.resolve("state/admin-token");
            adminToken = Files.readString(adminFile).strip();
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(adminFile))).isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("state/api-token")))).isEqualTo("rw-------");
            assertThat(first.api.send("GET", "/api/flags", adminToken, null).status()).isEqualTo(200);
        }
        assertThat(firstConsole).contains("admin token written to " + dir.resolve("state/admin-token") + ": " + adminToken);
        try (TestServer second = new TestServer(config)) {
            assertThat(second.console.toString()).isEmpty();
            assertThat(second.server.instanceId()).isEqualTo(instance);
            assertThat(second.api.send("GET", "/api/flags", adminToken, null).status()).isEqualTo(200);
        }
    }

    @Test
    void closeTearsDownLiveSandboxesAndIsIdempotent() {
        TestServer t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        t.api.verb("dev-1", "request_sandbox", "{}");
        assertThat(t.runtime.runningCount()).isEqualTo(2);
        t.close();
        t.close();
        assertThat(t.runtime.runningCount()).isZero();
    }

    @Test
    void refusesImageOverrideForUnknownEngine() {
        ServerConfig config = ServerConfig.fromEnv(java.util.Map.of("ROBOCO_SANDBOX_STATE_DIR", dir.toString(),
                "ROBOCO_SANDBOX_IMAGE_MYSQL", "mysql:8")).withPort(0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new TestServer(config))
                .isInstanceOf(ConfigException.class).hasMessageContaining("ROBOCO_SANDBOX_IMAGE_MYSQL names no engine; known: mongo, postgres, redis");
    }
}
