package io.roboco.sandbox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.settings.FlagStore;
import io.roboco.sandbox.settings.Quota;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.settings.SettingsStoreException;
import io.roboco.sandbox.testkit.SettingsStoreContract;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class H2SettingsStoreTest extends SettingsStoreContract {
    @TempDir
    Path stateDir;

    @Override
    protected SettingsStore createStore() {
        return JdbcSettingsStore.embedded(stateDir);
    }

    @Override
    protected SettingsStore reopen() {
        return JdbcSettingsStore.embedded(stateDir);
    }

    @Test
    void embeddedDatabaseLivesInTheStateDirectory() {
        assertThat(stateDir.resolve("roboco-sandbox.mv.db")).exists();
    }

    @Test
    void createsAMissingStateDirectory() {
        Path nested = stateDir.resolve("a/b");
        try (SettingsStore other = JdbcSettingsStore.embedded(nested)) {
            other.storeFlag(FlagStore.SANDBOX_DB_ENABLED, true);
        }
        assertThat(nested.resolve("roboco-sandbox.mv.db")).exists();
    }

    @Test
    void reopeningRecordsTheSchemaVersionOnce() throws Exception {
        store.close();
        store = JdbcSettingsStore.embedded(stateDir);
        store.close();
        store = null;
        try (Connection c = DriverManager.getConnection(h2Url(), "sa", "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*), MAX(version) FROM schema_version")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(Schema.CURRENT);
            assertThat(rs.getInt(2)).isEqualTo(Schema.CURRENT);
        }
    }

    @Test
    void aContainerWrittenBeforeMajorAndSeedWereRecordedReadsWithBothEmpty() throws Exception {
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        store.reserve(
                new SandboxRecord(
                        "sbx_old",
                        "dev-1",
                        "shop",
                        "default",
                        SandboxRecord.Kind.DEFAULT,
                        Map.of(),
                        List.of("postgres"),
                        List.of(),
                        "inst-a",
                        t0,
                        t0.plusSeconds(3600),
                        t0.plusSeconds(7200),
                        null,
                        null),
                new Quota(3, 0));
        store.close();
        store = null;
        try (Connection c = DriverManager.getConnection(h2Url(), "sa", "");
                Statement s = c.createStatement()) {
            s.execute(
                    "UPDATE sandboxes SET containers = '[{\"service\":\"postgres\",\"containerId\":\"c1\",\"containerName\":\"n1\","
                            + "\"image\":\"roboco-sandbox/postgres:15\",\"features\":[],\"fromPool\":false}]' WHERE id = 'sbx_old'");
        }
        store = JdbcSettingsStore.embedded(stateDir);
        assertThat(store.findSandbox("sbx_old").orElseThrow().containers())
                .singleElement()
                .satisfies(ref -> {
                    assertThat(ref.containerId()).isEqualTo("c1");
                    assertThat(ref.major()).isEmpty();
                    assertThat(ref.seed()).isEmpty();
                });
    }

    @Test
    void refusesADatabaseWrittenByANewerServer() throws Exception {
        store.close();
        store = null;
        try (Connection c = DriverManager.getConnection(h2Url(), "sa", "");
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO schema_version (version, applied_at) VALUES (99, CURRENT_TIMESTAMP)");
        }
        assertThatThrownBy(() -> JdbcSettingsStore.embedded(stateDir))
                .isInstanceOf(SettingsStoreException.class)
                .hasMessageContaining("schema version 99")
                .hasMessageContaining("knows only up to " + Schema.CURRENT);
    }

    @Test
    void secondProcessOnTheSameStateDirectoryIsRefusedWithAHint() throws Exception {
        Process child = child(false);
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(output)
                .startsWith("FAILED cannot open the settings database jdbc:h2:file:" + stateDir.toAbsolutePath())
                .contains("Another process (a second server?) has this state directory open");
    }

    @Test
    void everyAcknowledgedAppendSurvivesAKilledProcess() throws Exception {
        store.close();
        store = null;
        Process child = child(true);
        long acked = -1;
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null && acked < 200; ) {
                if (line.startsWith("ACK ")) {
                    acked = Long.parseLong(line.substring(4));
                }
            }
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(acked).as("child appends acknowledged").isGreaterThanOrEqualTo(200);
        store = JdbcSettingsStore.embedded(stateDir);
        assertThat(store.recent("child", null, 100_000).size()).isGreaterThanOrEqualTo((int) acked + 1);
    }

    private Process child(boolean append) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                EmbeddedStoreChild.class.getName(),
                stateDir.toAbsolutePath().toString()));
        if (append) {
            command.add("append");
        }
        return new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    @Test
    void unsupportedUrlNamesTheSupportedOnes() {
        assertThatThrownBy(() -> JdbcSettingsStore.open("jdbc:mysql://db/x?password=hunter2", "u", "hunter2"))
                .isInstanceOf(SettingsStoreException.class)
                .hasMessageContaining("jdbc:mysql://db/x?password=***")
                .hasMessageContaining("jdbc:h2:file:")
                .hasMessageContaining("jdbc:postgresql://")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void unreachablePostgresNamesTheUrlButNotThePassword() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/settings?connectTimeout=2&password=hunter2";
        assertThatThrownBy(() -> JdbcSettingsStore.open(url, "roboco", "hunter2"))
                .isInstanceOf(SettingsStoreException.class)
                .hasMessageContaining("jdbc:postgresql://127.0.0.1:" + port + "/settings?connectTimeout=2&password=***")
                .hasMessageContaining("user 'roboco'")
                .hasMessageContaining("Check that PostgreSQL is running")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void closedStoreSaysSo() {
        store.close();
        SettingsStore closed = store;
        store = null;
        assertThatThrownBy(() -> closed.storedFlag("X"))
                .isInstanceOf(SettingsStoreException.class)
                .hasMessageContaining("is closed");
    }

    private String h2Url() {
        return "jdbc:h2:file:" + stateDir.toAbsolutePath().resolve(JdbcSettingsStore.EMBEDDED_NAME);
    }
}
