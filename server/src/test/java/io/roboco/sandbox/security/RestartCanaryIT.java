package io.roboco.sandbox.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.LogCapture;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.store.TestPostgres;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * No plaintext credential at rest: every password the server generates is a canary ({@code CANARY…}); sandboxes
 * (agents' sets, a named one, the warm pool) are handed out, the server stops gracefully (keeping them, sealed) and
 * starts again (re-adopting them); then the state directory (every file, the embedded H2 database's included), the
 * PostgreSQL store's tables (every row of every table, as text), the logs (every logger at DEBUG, stdout, stderr) and
 * the audit trail are searched for every canary issued: none is found. Once on the embedded store, once on PostgreSQL.
 */
class RestartCanaryIT {
    @RegisterExtension
    static final TestPostgres.PerClass POSTGRES = TestPostgres.perClass();

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void noCanaryAtRestWithTheEmbeddedStore() throws Exception {
        Path state = dir.resolve("state");
        scan("embedded", state, () -> JdbcSettingsStore.embedded(state), null);
    }

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void noCanaryAtRestWithThePostgresStore() throws Exception {
        String url = POSTGRES.server().newDatabase();
        scan("postgres", dir.resolve("state"), () -> POSTGRES.server().openStore(url), url);
    }

    private void scan(String which, Path state, Supplier<SettingsStore> store, String postgresUrl) throws Exception {
        CanarySecretSource canary = new CanarySecretSource();
        Map<String, String> env = Fixtures.serverEnv(state, "1s", "40s", "30s");
        env.put("ROBOCO_SANDBOX_POOL_POSTGRES", "1");
        env.put("ROBOCO_SANDBOX_POOL_REDIS", "1");
        ServerConfig config = ServerConfig.fromEnv(env).withPort(0);
        Map<String, String> places = new LinkedHashMap<>();
        String instance = null;
        int sealedRows;
        try (LogCapture logs = new LogCapture()) {
            RunningServer first = SandboxServer.start(
                    config,
                    LocalImages.requireDockerAndImages(),
                    EngineRegistry.defaults(),
                    store.get(),
                    Clock.systemUTC(),
                    canary);
            instance = first.instanceId();
            Map<String, Map<String, Map<String, String>>> before = new LinkedHashMap<>();
            try {
                ApiClient api = new ApiClient(first.port());
                for (String agent : List.of("canary-r1", "canary-r2")) {
                    api.working(agent, "vault", "[\"postgres\",\"redis\",\"mongo\"]");
                    ApiClient.Reply r = api.requestSandboxRetrying(agent, 3);
                    assertThat(r.ok()).as("%s", r).isTrue();
                    before.put(agent, r.grants());
                }
                ApiClient.Reply named = api.admin(
                        "POST",
                        "/api/sandboxes",
                        "{\"owner\":\"job:ci-canary\",\"project\":\"vault\",\"services\":[\"postgres\"],\"name\":\"nightly\"}");
                assertThat(named.status()).as("%s", named).isIn(200, 201);
                assertThat(named.body()).contains(CanarySecretSource.MARK);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                while (!first.poolIdle().values().stream().allMatch(n -> n >= 1) && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                assertThat(first.poolIdle())
                        .as("the pools filled (their admin credentials are sealed too)")
                        .allSatisfy((k, n) -> assertThat(n).isEqualTo(1));
            } finally {
                first.close();
            }
            try (SettingsStore reading = store.get()) {
                sealedRows = reading.sealedOf(instance).size();
            }
            RunningServer second = SandboxServer.start(
                    config,
                    LocalImages.requireDockerAndImages(),
                    EngineRegistry.defaults(),
                    store.get(),
                    Clock.systemUTC(),
                    canary);
            try {
                ApiClient api = new ApiClient(second.port());
                for (Map.Entry<String, Map<String, Map<String, String>>> agent : before.entrySet()) {
                    ApiClient.Reply r = api.requestSandbox(agent.getKey());
                    assertThat(r.grants())
                            .as("re-adopted: the same credentials")
                            .isEqualTo(agent.getValue());
                }
                places.put(
                        "audit trail (GET /api/audit)",
                        api.admin("GET", "/api/audit?limit=1000", null).body());
                places.put(
                        "GET /api/sandboxes",
                        api.admin("GET", "/api/sandboxes?state=all", null).body());
            } finally {
                second.close();
            }
            places.put("server log (all loggers, DEBUG)", logs.logged());
            places.put("stdout+stderr", logs.printed());
        } finally {
            System.out.println("RestartCanaryIT cleanup removed " + Fixtures.removeAllOf(instance) + " container(s)");
        }
        try (Stream<Path> files = Files.walk(state)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                places.put(
                        "file " + state.relativize(f), new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
            }
        }
        if (postgresUrl != null) {
            places.putAll(tables(postgresUrl));
        }

        List<String> leaks = new ArrayList<>();
        for (Map.Entry<String, String> place : places.entrySet()) {
            for (String password : canary.issued) {
                if (place.getValue().contains(password)) {
                    leaks.add(place.getKey());
                }
            }
            if (place.getValue().contains(CanarySecretSource.MARK)) {
                leaks.add(place.getKey() + " (the canary mark)");
            }
        }
        String sealedWhere = postgresUrl != null ? "table sandbox_credentials" : "file roboco-sandbox.mv.db";
        assertThat(places.entrySet().stream()
                        .filter(e -> e.getKey().contains(postgresUrl != null ? "sandbox_credentials" : ".mv.db"))
                        .anyMatch(e -> e.getValue().contains("v1.")))
                .as("the scan reads the sealed rows (%s)", sealedWhere)
                .isTrue();
        Fixtures.figure("RestartCanaryIT (" + which + " store) plaintext passwords at rest: " + leaks.size() + " "
                + leaks + " (canaries issued " + canary.issued.size() + ", sealed rows " + sealedRows
                + ", places scanned " + places.size() + ")");
        assertThat(sealedRows)
                .as("agents' sets (6), the named sandbox (1); the idle pool's rows left with its containers at the"
                        + " graceful stop")
                .isGreaterThanOrEqualTo(7);
        assertThat(leaks).isEmpty();
    }

    /** Every row of every table in the store's database, as text, one place per table. */
    private static Map<String, String> tables(String url) throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        Properties p = new Properties();
        p.setProperty("user", TestPostgres.USER);
        p.setProperty("password", POSTGRES.server().password);
        try (Connection c = DriverManager.getConnection(url, p)) {
            List<String> names = new ArrayList<>();
            try (ResultSet rs = c.getMetaData().getTables(null, "public", "%", new String[] {"TABLE"})) {
                while (rs.next()) {
                    names.add(rs.getString("TABLE_NAME"));
                }
            }
            for (String table : names) {
                StringBuilder text = new StringBuilder();
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
                    ResultSetMetaData md = rs.getMetaData();
                    while (rs.next()) {
                        for (int i = 1; i <= md.getColumnCount(); i++) {
                            text.append(rs.getString(i)).append('|');
                        }
                        text.append('\n');
                    }
                }
                out.put("postgres table " + table, text.toString());
            }
        }
        return out;
    }
}
