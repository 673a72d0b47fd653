package io.roboco.sandbox.engine.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.EngineImages;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.RunningSandbox;
import io.roboco.sandbox.engine.UnknownNameException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Checkpoint and rewind against a real sandbox, as the agent sees it: after a rewind the unchanged
 * {@code ROBOCO_TEST_DB_URL} connects to the checkpoint's data, still owned by the agent.
 */
class CheckpointRewindIT {
    /** Asked of the engine, as the core asks it. */
    private static final Checkpoints CHECKPOINTS =
            new PostgresEngine().checkpoints().orElseThrow();

    static final String IMAGE = System.getProperty("roboco.it.image.postgres", "roboco-sandbox/postgres:15");

    @Test
    void rewindBringsBackTheDroppedTableAndTheOriginalRowsUnderTheSameUrl() throws Exception {
        EngineImages.requireLocal(IMAGE);
        PostgresEngine engine = new PostgresEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, IMAGE)) {
            engine.prepareAgent(sandbox.target);
            String url =
                    engine.env(sandbox.target.endpoint(), sandbox.credentials).get("ROBOCO_TEST_DB_URL");
            try (Connection agent = connect(url);
                    Statement s = agent.createStatement()) {
                s.execute("CREATE TABLE customers (id int PRIMARY KEY, name text)");
                s.execute("INSERT INTO customers VALUES (1, 'ada'), (2, 'grace'), (3, 'linus')");
                s.execute("CREATE TABLE events (id serial PRIMARY KEY, what text)");
                s.execute("INSERT INTO events (what) VALUES ('signup')");
            }

            Connection held = connect(url);
            Checkpoints.Result checkpoint = CHECKPOINTS.checkpoint(sandbox.target, "before-migration");
            assertThat(checkpoint.sessionsClosed())
                    .as("the agent's open session was closed")
                    .isEqualTo(1);
            assertThat(held.isValid(2)).isFalse();
            held.close();
            assertThat(CHECKPOINTS.list(sandbox.target))
                    .extracting(Checkpoints.Checkpoint::name)
                    .containsExactly("before-migration");

            try (Connection agent = connect(url);
                    Statement s = agent.createStatement()) {
                s.execute("DROP TABLE customers");
                s.execute("INSERT INTO events (what) VALUES ('migrated'), ('oops')");
                assertThatThrownBy(() -> connect(url.replace(
                                sandbox.credentials.database(),
                                sandbox.credentials.database() + "__ck_before-migration")))
                        .as("nobody connects to a checkpoint")
                        .isInstanceOf(SQLException.class);
            }

            held = connect(url);
            Checkpoints.Result rewind = CHECKPOINTS.rewind(sandbox.target, "before-migration");
            assertThat(rewind.sessionsClosed()).isEqualTo(1);
            held.close();
            System.out.println("[figure] checkpoint " + checkpoint.millis() + " ms, rewind " + rewind.millis()
                    + " ms (small database)");

            try (Connection agent = connect(url);
                    Statement s = agent.createStatement()) {
                assertThat(ids(s, "SELECT id FROM customers ORDER BY id")).containsExactly(1, 2, 3);
                assertThat(ids(s, "SELECT count(*) FROM events")).containsExactly(1);
                try (ResultSet rs =
                        s.executeQuery("SELECT bool_and(pg_get_userbyid(relowner) = current_user) FROM pg_class"
                                + " WHERE relnamespace = 'public'::regnamespace")) {
                    rs.next();
                    assertThat(rs.getBoolean(1))
                            .as("every object still the agent's")
                            .isTrue();
                }
                s.execute("CREATE TABLE after_rewind (id int)"); // still owns its database and public schema
                try (ResultSet rs = s.executeQuery(
                        "SELECT pg_get_userbyid(datdba) = current_user FROM pg_database WHERE datname = current_database()")) {
                    rs.next();
                    assertThat(rs.getBoolean(1)).isTrue();
                }
            }
            assertThatThrownBy(() -> CHECKPOINTS.rewind(sandbox.target, "nope"))
                    .isInstanceOf(UnknownNameException.class)
                    .hasMessageContaining("there are: before-migration");
            assertThatThrownBy(() -> CHECKPOINTS.checkpoint(sandbox.target, "Bad Name"))
                    .isInstanceOf(UnknownNameException.class);
        }
    }

    @Test
    void rewindOfAPgbenchScaleOneDatabaseIsReported() throws Exception {
        EngineImages.requireLocal(IMAGE);
        PostgresEngine engine = new PostgresEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, IMAGE)) {
            engine.prepareAgent(sandbox.target);
            String db = sandbox.credentials.database();
            ExecResult init = sandbox.exec.exec(
                    List.of(
                            "pgbench",
                            "-i",
                            "-s",
                            "1",
                            "-q",
                            "-U",
                            sandbox.credentials.user(),
                            "-h",
                            "/var/run/postgresql",
                            "-p",
                            Integer.toString(sandbox.target.endpoint().port()),
                            db),
                    Map.of());
            assertThat(init.ok()).as("pgbench -i: %s", init.output()).isTrue();
            String url =
                    engine.env(sandbox.target.endpoint(), sandbox.credentials).get("ROBOCO_TEST_DB_URL");

            Checkpoints.Result checkpoint = CHECKPOINTS.checkpoint(sandbox.target, "bench");
            try (Connection agent = connect(url);
                    Statement s = agent.createStatement()) {
                s.execute("DELETE FROM pgbench_accounts WHERE aid % 2 = 0");
            }
            List<Long> rewinds = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                rewinds.add(CHECKPOINTS.rewind(sandbox.target, "bench").millis());
            }
            try (Connection agent = connect(url);
                    Statement s = agent.createStatement()) {
                assertThat(ids(s, "SELECT count(*) FROM pgbench_accounts")).containsExactly(100_000);
            }
            List<Long> sorted = rewinds.stream().sorted().toList();
            System.out.printf(
                    "[figure] pgbench scale 1 (%d MB): checkpoint %d ms; rewind runs %s ms, median %d ms (%s)%n",
                    checkpoint.sizeBytes() / 1_000_000, checkpoint.millis(), rewinds, sorted.get(2), IMAGE);
        }
    }

    private static Connection connect(String url) throws SQLException {
        URI u = URI.create(url);
        String[] userInfo = u.getRawUserInfo().split(":", 2);
        return DriverManager.getConnection(
                "jdbc:postgresql://" + u.getHost() + ":" + u.getPort() + u.getRawPath(),
                URLDecoder.decode(userInfo[0], StandardCharsets.UTF_8),
                URLDecoder.decode(userInfo[1], StandardCharsets.UTF_8));
    }

    private static List<Integer> ids(Statement s, String sql) throws SQLException {
        List<Integer> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getInt(1));
            }
        }
        return out;
    }
}
