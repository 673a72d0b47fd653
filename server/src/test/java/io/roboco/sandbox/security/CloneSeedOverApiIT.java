package io.roboco.sandbox.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.ChildServer;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.SourcePostgres;
import io.roboco.sandbox.testkit.ApiClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 13's clone and bad-seed items end to end, through the standalone server as an orchestrator runs it (a child
 * JVM configured from its environment, the source URL in that environment): a real source Postgres container loaded
 * with tables, a view, a function, a foreign key, rows, a foreign owner and a grant. Each new sandbox of the project
 * gets that schema owned by the agent's role with no foreign owner or grant, rows only when asked and capped; a bad
 * SQL seed and an unreachable source are each a retryable invalid_state naming the cause with no container left; and
 * the source's password is in no answer, no audit record, no line the server logged and no file of its state dir.
 */
class CloneSeedOverApiIT {
    private static final String SOURCE_PASSWORD = "clone-canary-" + UUID.randomUUID();
    private static Path dir;
    private static ChildServer server;
    private static ApiClient api;
    private static SourcePostgres source;
    private static final List<String> answers = new ArrayList<>();
    /** The server's own loggers at DEBUG; libraries as shipped (docker-java's and httpclient's request dumps stay off). */
    private static final String LOGBACK_DEBUG =
            "<configuration><appender name=\"E\" class=\"ch.qos.logback.core.ConsoleAppender\">"
                    + "<target>System.err</target><encoder><pattern>%level %logger - %msg%n</pattern></encoder></appender>"
                    + "<logger name=\"io.roboco\" level=\"DEBUG\"/><root level=\"INFO\"><appender-ref ref=\"E\"/></root></configuration>";

    @BeforeAll
    static void start() throws Exception {
        LocalImages.requireDockerAndImages().close();
        dir = Files.createTempDirectory("roboco-clone-it");
        source = SourcePostgres.of("roboco-sandbox/postgres:17", "shop_owner", "shop")
                .withPassword(SOURCE_PASSWORD)
                .labelled("clone-source")
                .start();
        try (Connection c = source.connect();
                Statement s = c.createStatement()) {
            s.execute("""
                    CREATE ROLE reporting;
                    CREATE TABLE customers (id int PRIMARY KEY, email text NOT NULL UNIQUE);
                    CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers (id), total numeric);
                    CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 50;
                    CREATE FUNCTION order_total(c int) RETURNS numeric LANGUAGE sql STABLE AS 'SELECT sum(total) FROM orders WHERE customer_id = c';
                    CREATE TABLE reports (id int PRIMARY KEY);
                    ALTER TABLE reports OWNER TO reporting;
                    INSERT INTO customers SELECT g, 'c' || g || '@shop.test' FROM generate_series(1, 10) g;
                    INSERT INTO orders SELECT g, 1 + g % 10, g * 10 FROM generate_series(1, 20) g;
                    GRANT SELECT ON customers TO reporting;
                    """);
        }
        Map<String, String> env = Fixtures.serverEnv(dir.resolve("state"), "30s", "5m", "60s");
        env.put("ROBOCO_SANDBOX_IMAGE_POSTGRES_17", "roboco-sandbox/postgres:17");
        env.put("SHOP_DB_URL", source.url());
        env.put("GONE_DB_URL", "postgresql://shop_owner:" + SOURCE_PASSWORD + "@127.0.0.1:1/shop");
        // The server's own code at DEBUG (libraries as shipped), so "not in the log" holds for an operator who turns it
        // up.
        Path logback = dir.resolve("logback-debug.xml");
        Files.writeString(logback, LOGBACK_DEBUG);
        env.put("JAVA_TOOL_OPTIONS", "-Dlogback.configurationFile=" + logback);
        server = ChildServer.start(env, ChildServer.freePort(), dir.resolve("server.log"));
        api = server.api;
    }

    @AfterAll
    static void cleanUp() throws Exception {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            Fixtures.removeAllOf(Fixtures.instanceIdIn(dir.resolve("state")));
            if (source != null) {
                source.close();
            }
        }
    }

    /** Project {@code project} on Postgres 17 with {@code seedJson}; agent {@code agent} working there; its request_sandbox. */
    private static ApiClient.Reply request(String project, String agent, String seedJson) {
        ApiClient.Reply saved = api.admin(
                "PUT",
                "/api/projects/" + project,
                "{\"name\":\"" + project + "\",\"sandbox_services\":[\"postgres\"],"
                        + "\"sandbox_versions\":{\"postgres\":\"17\"},\"sandbox_seed\":{\"postgres\":" + seedJson
                        + "}}");
        answers.add(saved.body());
        assertThat(saved.status()).as(saved.body()).isEqualTo(200);
        answers.add(api.orchestrator(
                        "POST",
                        "/api/agents/" + agent + "/spawn",
                        "{\"role\":\"developer\",\"project\":\"" + project + "\"}")
                .body());
        answers.add(api.verb(agent, "give_me_work", "{\"project\":\"" + project + "\",\"task\":\"T-1\"}")
                .body());
        ApiClient.Reply reply = api.verb(agent, "request_sandbox", "{}");
        answers.add(reply.body());
        answers.add(api.admin("GET", "/api/projects/" + project, null).body());
        return reply;
    }

    private static Connection agent(ApiClient.Reply granted) throws SQLException {
        assertThat(granted.ok()).as(granted.body()).isTrue();
        Map<String, String> env = granted.grants().get("postgres");
        return DriverManager.getConnection(
                "jdbc:postgresql://" + env.get("ROBOCO_TEST_DB_HOST") + ":" + env.get("ROBOCO_TEST_DB_PORT") + "/"
                        + env.get("ROBOCO_TEST_DB_NAME"),
                env.get("ROBOCO_TEST_DB_USER"),
                env.get("ROBOCO_TEST_DB_PASSWORD"));
    }

    @Test
    void cloneBadSeedsAndTheSourcePasswordThroughTheServer() throws Exception {
        // A capped clone: the schema whole, at most 3 rows per table, every object the agent's, no grant.
        try (Connection c = agent(request(
                        "shop",
                        "dev-capped",
                        "{\"clone\":{\"url_env\":\"SHOP_DB_URL\",\"data\":{\"max_rows_per_table\":3}}}"));
                Statement s = c.createStatement()) {
            assertThat(one(s, "SELECT count(*) FROM customers")).isEqualTo(3);
            assertThat(one(s, "SELECT count(*) FROM orders")).isBetween(0L, 3L);
            assertThat(one(s, "SELECT count(*) FROM reports")).isZero();
            assertThat(one(s, "SELECT count(*) FROM pg_views WHERE schemaname = 'public' AND viewname = 'big_orders'"))
                    .isEqualTo(1);
            assertThat(one(s, "SELECT count(*) FROM pg_proc WHERE proname = 'order_total'"))
                    .isEqualTo(1);
            assertThat(one(s, "SELECT count(*) FROM pg_constraint WHERE contype = 'f'"))
                    .isEqualTo(1);
            assertThat(one(
                            s,
                            "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace"
                                    + " AND pg_get_userbyid(relowner) <> current_user"))
                    .as("no foreign owner (reports was reporting's)")
                    .isZero();
            assertThat(one(
                            s,
                            "SELECT count(*) FROM pg_proc WHERE pronamespace = 'public'::regnamespace"
                                    + " AND pg_get_userbyid(proowner) <> current_user"))
                    .isZero();
            assertThat(
                            one(
                                    s,
                                    "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relacl IS NOT NULL"))
                    .as("no grant copied")
                    .isZero();
            assertThat(one(s, "SELECT count(*) FROM pg_roles WHERE rolname = 'reporting'"))
                    .as("no source role made")
                    .isZero();
        }
        // Schema only: no row at all, the foreign key whole.
        try (Connection c = agent(request(
                        "shop-schema", "dev-schema", "{\"clone\":{\"url_env\":\"SHOP_DB_URL\",\"data\":false}}"));
                Statement s = c.createStatement()) {
            assertThat(one(s, "SELECT count(*) FROM customers") + one(s, "SELECT count(*) FROM orders"))
                    .isZero();
            assertThat(one(s, "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND convalidated"))
                    .isEqualTo(1);
        }

        ApiClient.Reply badSql = request(
                "bad-sql", "dev-bad", "{\"sql\":\"CREATE TABLE a (id int);\\nCREATE TABLE b (id nonsense_type);\"}");
        assertThat(badSql.json())
                .containsEntry("ok", false)
                .containsEntry("error", "invalid_state")
                .containsEntry("retryable", true);
        assertThat((String) badSql.json().get("reason")).contains("statement 2 of 2", "nonsense_type");
        assertThat(Fixtures.containersOf(Fixtures.instanceIdIn(dir.resolve("state")), "dev-bad"))
                .isEmpty();

        ApiClient.Reply gone = request("gone", "dev-gone", "{\"clone\":{\"url_env\":\"GONE_DB_URL\",\"data\":false}}");
        assertThat(gone.json())
                .containsEntry("ok", false)
                .containsEntry("error", "invalid_state")
                .containsEntry("retryable", true);
        assertThat((String) gone.json().get("reason"))
                .as("a clone failure names no source host, port, user or database")
                .contains("clone from $GONE_DB_URL failed")
                .doesNotContain("127.0.0.1", "port 1", "/shop", "shop_owner");
        assertThat(Fixtures.containersOf(Fixtures.instanceIdIn(dir.resolve("state")), "dev-gone"))
                .isEmpty();

        // The source's password: nowhere an operator or an agent could read it.
        answers.add(api.admin("GET", "/api/audit?limit=500", null).body());
        answers.add(api.admin("GET", "/api/sandboxes?state=all", null).body());
        for (String answer : answers) {
            assertThat(answer).doesNotContain(SOURCE_PASSWORD);
        }
        assertThat(answers.get(answers.size() - 2)).contains("request_sandbox").contains("invalid_state");
        assertThat(server.logText()).as("the server's log").isNotEmpty().doesNotContain(SOURCE_PASSWORD);
        List<Path> leaking;
        try (Stream<Path> files = Files.walk(dir.resolve("state"))) {
            leaking = files.filter(Files::isRegularFile)
                    .filter(CloneSeedOverApiIT::holdsCanary)
                    .toList();
        }
        assertThat(leaking).as("state-dir files holding the source password").isEmpty();
        Fixtures.figure("CloneSeedOverApiIT: " + answers.size() + " answers, the server log ("
                + server.logText().length() + " chars) and the state dir scanned: source password found 0 times");
    }

    private static boolean holdsCanary(Path file) {
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).contains(SOURCE_PASSWORD);
        } catch (IOException e) {
            return false;
        }
    }

    private static long one(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
