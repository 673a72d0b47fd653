package io.roboco.sandbox.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.mcp.TypeScriptMcpClient;
import io.roboco.sandbox.provision.Psql;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Containment issue, items 2 and 6, with the attacker's own moves: an agent holding its MCP token drives the official
 * MCP TypeScript client against the real server and its real Postgres sandbox. It stores secrets in denied columns and
 * tries every spelling that turns a row into one value (the redaction class), then asks for results far larger than the
 * server should ever hold (the result-size class). Each attempt must be refused or answer without the secret, answers
 * must stay within the caps, the database must be unchanged, another project's agent unharmed, and nothing may log an
 * OutOfMemoryError.
 */
@SuppressWarnings("unchecked")
class HostileQueriesIT {
    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "60s", null));

    private static final String SECRET = "SECRET-c0ffee";

    /** Each spelling would return a denied column's value if redaction followed names only. */
    static final List<String> SPELLINGS = List.of(
            "SELECT u.to_jsonb FROM users u",
            "SELECT u.*::text FROM users u",
            "SELECT u.* :: text FROM users u",
            "SELECT 'x' || u.* FROM users u",
            "SELECT u.row_to_json FROM users u",
            "SELECT \"u\".\"to_json\" FROM users u",
            "SELECT u.hstore FROM users u",
            "SELECT u.quote_literal FROM users u",
            "SELECT u.concat FROM users u",
            "SELECT u.format FROM users u",
            "SELECT u.row_text FROM users u",
            "SELECT id FROM users u WHERE u.row_text LIKE '%ann%'",
            "SELECT row_to_json(u) FROM users u",
            "SELECT to_jsonb(u) FROM users u",
            "SELECT ROW(u.*) FROM users u",
            "SELECT (u).* FROM users u",
            "SELECT (u).password_hash FROM users u",
            "SELECT CAST(u AS text) FROM users u",
            "SELECT u::text FROM users u",
            "SELECT json_agg(u) FROM users u",
            "SELECT array_agg(u.*) FROM users u",
            "SELECT r FROM user_rows",
            "SELECT * FROM user_rows",
            "SELECT h FROM user_hashes",
            "SELECT * FROM users ORDER BY 3",
            "SELECT x FROM (SELECT * FROM users) x",
            "SELECT public.users.to_jsonb FROM public.users");

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aHostileAgentReadsNoDeniedValueAndCannotMakeTheServerHoldAnUnboundedResult() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(logs);
        try {
            attack(SERVER.api(), logs);
        } finally {
            root.detachAppender(logs);
        }
    }

    private static void attack(ApiClient api, ListAppender<ILoggingEvent> logs) throws Exception {
        Bystander bystander = Bystander.standing(api, "hq-bystander");
        String attacker = "hq-attacker";
        api.working(attacker, "hq-attack", "[\"postgres\"]");
        ApiClient.Reply minted = api.orchestrator(
                "POST", "/api/agents/" + attacker + "/token", "{\"toolsets\":[\"core\",\"inspect\",\"data\"]}");
        assertThat(minted.status()).as("%s", minted).isEqualTo(200);
        String token = (String) minted.json().get("token");

        try (TypeScriptMcpClient client =
                TypeScriptMcpClient.http("http://127.0.0.1:" + SERVER.server().port() + "/mcp", token)) {
            assertThat(client.connect().ok()).isTrue();
            String url = databaseUrl(client);
            Psql.run(
                    url,
                    "CREATE TABLE users (id int PRIMARY KEY, name text, password_hash text, api_token text);"
                            + " INSERT INTO users VALUES (1, 'ann', '" + SECRET + "-hash', 'tok_" + SECRET
                            + "'), (2, 'bob', '" + SECRET + "-2', NULL);"
                            + " CREATE VIEW user_rows AS SELECT id, u::text AS r FROM users u;"
                            + " CREATE VIEW user_hashes AS SELECT id, md5(password_hash) || password_hash AS h FROM users;"
                            + " CREATE FUNCTION row_text(users) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT $1::text';"
                            + " CREATE TABLE big_values AS SELECT 1 AS g, repeat('x', 20000000) AS big;"
                            + " INSERT INTO big_values SELECT g, (SELECT big FROM big_values WHERE g = 1) FROM generate_series(2, 40) g;");
            String before = checksum(url);

            // redaction: every spelling refused, none answers a secret
            int refused = 0;
            for (String sql : SPELLINGS) {
                TypeScriptMcpClient.Answer a = client.call("run_readonly_query", Map.of("sql", sql));
                assertThat(a.ok())
                        .as("%s: a tool result, not a protocol error: %s", sql, a.json())
                        .isTrue();
                assertThat(a.json().toString()).as("%s leaks nothing", sql).doesNotContain(SECRET);
                if (a.isError()) {
                    refused++;
                } else {
                    System.out.println("[hostile] answered (without the secret): " + sql + " -> "
                            + a.text().lines().findFirst().orElse(""));
                }
            }
            TypeScriptMcpClient.Answer star =
                    client.call("run_readonly_query", Map.of("sql", "SELECT * FROM users ORDER BY id"));
            assertThat(star.isError()).isFalse();
            assertThat(star.text()).contains("[REDACTED]").contains("ann").doesNotContain(SECRET);
            boolean healthy = Bystander.healthy(api);
            Bystander.figure("redaction", SPELLINGS.size(), refused, healthy, "leaked=0");
            assertThat(refused).as("every spelling refused").isEqualTo(SPELLINGS.size());

            // result size: 40 x 20 MB rows, and a plan holding a folded 50 MB constant
            long start = System.nanoTime();
            TypeScriptMcpClient.Answer big =
                    client.call("run_readonly_query", Map.of("sql", "SELECT g, big FROM big_values ORDER BY g"));
            long bigMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(big.isError()).as("%s", big.json()).isFalse();
            Map<String, Object> evidence =
                    (Map<String, Object>) big.structured().get("evidence");
            assertThat(evidence.get("truncated")).isEqualTo(true);
            assertThat((List<Map<String, Object>>) evidence.get("cut_cells"))
                    .isNotEmpty()
                    .allSatisfy(cut ->
                            assertThat(((Number) cut.get("bytes")).longValue()).isEqualTo(20_000_000L));
            assertThat(((Number) evidence.get("bytes")).longValue()).isLessThanOrEqualTo(64 * 1024);
            int answerChars = big.json().toString().length();

            TypeScriptMcpClient.Answer plan = client.call(
                    "explain_query",
                    Map.of(
                            "sql",
                            "SELECT g FROM generate_series(1, 3) g WHERE g::text = repeat('x', 6000000)",
                            "include_raw_plan",
                            true));
            TypeScriptMcpClient.Answer planned =
                    client.call("run_readonly_query", Map.of("sql", "SELECT repeat('x', 6000000) AS big"));
            int bounded = 0;
            for (TypeScriptMcpClient.Answer a : List.of(plan, planned)) {
                assertThat(a.isError()).as("%s", a.structured()).isTrue();
                Object rule = a.structured().get("rule");
                assertThat(rule == null ? a.structured().get("sql_state") : rule)
                        .as(
                                "refused over budget, or cancelled by statement_timeout: %s",
                                a.structured().get("reason"))
                        .isIn("over_budget", "57014");
                assertThat(a.json().toString().length()).isLessThan(64 * 1024);
                bounded++;
            }
            healthy = Bystander.healthy(api);
            Bystander.figure(
                    "result size",
                    3,
                    bounded,
                    healthy,
                    "truncated=1 answer_chars=" + answerChars + " big_query_ms=" + bigMillis
                            + " fetch_budget_bytes=4194304");
            assertThat(healthy).isTrue();

            assertThat(checksum(url))
                    .as("the attacker's database is unchanged by every attempt")
                    .isEqualTo(before);
        }
        bystander.assertUnharmed();
        assertThat(logs.list)
                .as("nothing logged an OutOfMemoryError")
                .noneMatch(e -> String.valueOf(e.getFormattedMessage()).contains("OutOfMemoryError")
                        || (e.getThrowableProxy() != null
                                && e.getThrowableProxy().getClassName().contains("OutOfMemoryError")));
    }

    private static String databaseUrl(TypeScriptMcpClient client) throws InterruptedException {
        TypeScriptMcpClient.Answer r = client.call("request_sandbox", Map.of());
        for (int i = 1;
                i < 3
                        && r.ok()
                        && r.isError()
                        && Boolean.TRUE.equals(r.structured().get("retryable"));
                i++) {
            Thread.sleep(1000);
            r = client.call("request_sandbox", Map.of());
        }
        assertThat(r.isError()).as("request_sandbox: %s", r.json()).isFalse();
        Map<String, Object> evidence = (Map<String, Object>) r.structured().get("evidence");
        Map<String, String> env = (Map<String, String>)
                ((List<Map<String, Object>>) evidence.get("sandboxes")).get(0).get("env");
        return env.get("ROBOCO_TEST_DB_URL");
    }

    private static String checksum(String url) throws Exception {
        return Psql.run(
                        url,
                        "SELECT count(*) || ':' || md5(string_agg(t::text, '|' ORDER BY t.id)) FROM users t;"
                                + " SELECT string_agg(c.relname::text || c.relkind::text, ',' ORDER BY c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                                + " WHERE n.nspname = 'public';")
                .strip();
    }
}
