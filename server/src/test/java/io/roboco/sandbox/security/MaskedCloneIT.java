package io.roboco.sandbox.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.ChildServer;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.OfficialClients;
import io.roboco.sandbox.mcp.TypeScriptMcpClient;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.SourcePostgres;
import io.roboco.sandbox.testkit.ApiClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 23's masked clones, attacked the way an agent would: a real source Postgres container holds a {@code users}
 * table of emails, card numbers and password hashes (each value a unique canary) beside a table it may copy as it is.
 * A project clones it with rules ({@code fake_email}, {@code keep_last(4)}, {@code hash}); then, as the agent, no
 * original value is readable through {@code psql}, through the inspection tools (MCP, the official TypeScript SDK
 * client: run_readonly_query, describe_table), through {@code pg_dump} on the handed-out URL or in a saved template, and
 * none is in any file of the sandbox container's data directory after a {@code CHECKPOINT} (no old tuple version, no
 * WAL record: the rules run in the source's query, so an original never enters the sandbox) while the masked values
 * are (the search finds what is there). Without a rule for {@code card_number}, a denied-pattern column, the seed is
 * refused naming it, and no container is left; an unknown rule or a malformed column is refused when the project is
 * saved. The source's password and host are in no answer.
 */
@SuppressWarnings("unchecked")
class MaskedCloneIT {
    private static final String SOURCE_PASSWORD = "mask-canary-" + UUID.randomUUID();
    private static final String CANARY = UUID.randomUUID().toString().substring(0, 8);
    private static final int USERS = 20;
    private static Path dir;
    private static ChildServer server;
    private static ApiClient api;
    private static SourcePostgres source;
    private static final List<String> originals = new ArrayList<>();
    private static final List<String> answers = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        LocalImages.requireDockerAndImages().close();
        dir = Files.createTempDirectory("roboco-mask-it");
        source = SourcePostgres.of("roboco-sandbox/postgres:15", "crm_owner", "crm")
                .withPassword(SOURCE_PASSWORD)
                .labelled("mask-source")
                .start();
        try (Connection c = source.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE users (id int PRIMARY KEY, name text, email text NOT NULL UNIQUE,"
                    + " card_number varchar(19), password_hash text)");
            s.execute("CREATE TABLE plans (id int PRIMARY KEY, title text)");
            s.execute("INSERT INTO plans VALUES (1, 'free'), (2, 'pro')");
            for (int i = 1; i <= USERS; i++) {
                String email = "orig" + i + "." + CANARY + "@customer.example";
                String card = "4" + String.format("%015d", 1000L * i + 4242) + "";
                String hash = "pwhash" + i + CANARY;
                originals.add(email);
                originals.add(card);
                originals.add(hash);
                s.execute("INSERT INTO users VALUES (" + i + ", 'user " + i + "', '" + email + "', '" + card + "', '"
                        + hash + "')");
            }
        }
        Map<String, String> env = Fixtures.serverEnv(dir.resolve("state"), "30s", "5m", "60s");
        env.put("CRM_DB_URL", source.url());
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

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void noOriginalValueReachesTheAgentThroughSqlInspectionOrTheDump() throws Exception {
        ApiClient.Reply granted = request(
                "crm",
                "dev-mask",
                "{\"clone\":{\"url_env\":\"CRM_DB_URL\",\"data\":true,\"mask\":{\"users.email\":\"fake_email\","
                        + "\"users.card_number\":\"keep_last(4)\",\"users.password_hash\":\"hash\"}}}");
        assertThat(granted.ok()).as(granted.body()).isTrue();
        Map<String, String> env = granted.grants().get("postgres");
        String url = env.get("ROBOCO_TEST_DB_URL");

        // psql as the agent: every row there, masked; the unmasked table as it was
        assertThat(psql(url, "SELECT count(*) FROM users")).isEqualTo(Integer.toString(USERS));
        assertThat(psql(url, "SELECT title FROM plans ORDER BY id")).isEqualTo("free\npro");
        String all = psql(url, "SELECT id, name, email, card_number, password_hash FROM users ORDER BY id");
        assertNoOriginal("psql SELECT", all);
        assertThat(psql(url, "SELECT email FROM users WHERE id = 1")).matches("user_[0-9a-f]{16}@example\\.invalid");
        assertThat(psql(url, "SELECT card_number FROM users WHERE id = 1")).isEqualTo("************5242");
        assertThat(psql(url, "SELECT length(password_hash) FROM users WHERE id = 1"))
                .isEqualTo("32");
        assertThat(psql(url, "SELECT count(DISTINCT email) FROM users")).isEqualTo(Integer.toString(USERS));
        // what else the agent's role can read of its database: every text it can cast a row to, the statistics
        assertNoOriginal("psql rows as text", psql(url, "SELECT string_agg(u::text, ' ') FROM users u"));
        psql(url, "ANALYZE users");
        assertNoOriginal(
                "pg_stats",
                psql(
                        url,
                        "SELECT string_agg(coalesce(most_common_vals::text, '') || coalesce(histogram_bounds::text, ''),"
                                + " ' ') FROM pg_stats WHERE tablename = 'users'"));

        // the inspection tools, through the official MCP TypeScript SDK client
        ApiClient.Reply minted = api.orchestrator(
                "POST", "/api/agents/dev-mask/token", "{\"toolsets\":[\"core\",\"data\",\"inspect\"]}");
        assertThat(minted.status()).as("%s", minted).isEqualTo(200);
        try (TypeScriptMcpClient client =
                TypeScriptMcpClient.http("http://127.0.0.1:" + server.api.port() + "/mcp", (String)
                        minted.json().get("token"))) {
            assertThat(client.connect().ok()).isTrue();
            TypeScriptMcpClient.Answer rows =
                    client.call("run_readonly_query", Map.of("sql", "SELECT id, name, email FROM users"));
            assertThat(rows.isError()).as("%s", rows.json()).isFalse();
            assertThat(rows.json().toString()).contains("example.invalid");
            assertNoOriginal("run_readonly_query", rows.json().toString());
            TypeScriptMcpClient.Answer described = client.call("describe_table", Map.of("table", "users"));
            assertThat(described.isError()).as("%s", described.json()).isFalse();
            assertNoOriginal("describe_table", described.json().toString());
        }

        // the dump: pg_dump on the handed-out URL, and a template saved from the sandbox (scanned in the state dir)
        String dump = OfficialClients.run(List.of("pg_dump", "--no-owner", "-d", url), Map.of());
        assertThat(dump).contains("COPY public.users", "example.invalid");
        assertNoOriginal("pg_dump", dump);
        ApiClient.Reply saved = api.verb("dev-mask", "save_template", "{\"name\":\"crm-masked\"}");
        assertThat(saved.json()).as(saved.body()).containsEntry("ok", true);

        // below SQL: the container's data directory after a checkpoint holds the masked values and no original
        String container = LocalImages.docker(
                        "ps",
                        "-q",
                        "--filter",
                        "label=roboco.sandbox.instance=" + Fixtures.instanceIdIn(dir.resolve("state")),
                        "--filter",
                        "label=roboco.sandbox.agent=dev-mask")
                .strip();
        assertThat(container)
                .as("the agent's one sandbox container")
                .isNotEmpty()
                .doesNotContain("\n");
        LocalImages.docker(
                "exec",
                container,
                "psql",
                "-X",
                "-q",
                "-h",
                "/var/run/postgresql",
                "-p",
                env.get("ROBOCO_TEST_DB_PORT"),
                "-U",
                "roboco_admin",
                "-d",
                "postgres",
                "-c",
                "CHECKPOINT");
        String found = LocalImages.docker(
                "exec",
                container,
                "sh",
                "-c",
                "grep -rlaF -e '************5242' /var/lib/postgresql/data | head -1; for v in \"$@\"; do"
                        + " grep -rlaF -e \"$v\" /var/lib/postgresql/data; done; true",
                "sh",
                originals.get(0),
                originals.get(1),
                originals.get(2),
                CANARY);
        List<String> files = found.strip().lines().toList();
        assertThat(files)
                .as("the masked card number is on disk (the search finds what is there)")
                .isNotEmpty();
        assertThat(files)
                .as("files holding an original value or the canary: %s", files)
                .hasSize(1);

        try (Stream<Path> stateFiles = Files.walk(dir.resolve("state"))) {
            List<Path> leaking = stateFiles
                    .filter(Files::isRegularFile)
                    .filter(p -> holds(p, CANARY))
                    .toList();
            assertThat(leaking)
                    .as("state-dir files (templates included) holding an original value")
                    .isEmpty();
        }
        Fixtures.figure("MaskedCloneIT: " + originals.size() + " original values, none found through psql, pg_stats,"
                + " run_readonly_query, describe_table, pg_dump, the saved template or the data directory");
    }

    @Test
    void aDeniedColumnWithoutARuleRefusesTheSeedNamingIt() {
        ApiClient.Reply refused = request(
                "crm-open",
                "dev-open",
                "{\"clone\":{\"url_env\":\"CRM_DB_URL\",\"data\":true,\"mask\":{\"users.email\":\"fake_email\","
                        + "\"users.password_hash\":\"null\"}}}");
        assertThat(refused.json()).as(refused.body()).containsEntry("ok", false);
        assertThat((String) refused.json().get("reason"))
                .contains("public.users.card_number", "denied-column pattern 'card_number'", "no mask rule")
                .doesNotContain("127.0.0.1", "crm_owner", SOURCE_PASSWORD);
        assertThat(refused.body()).doesNotContain(CANARY);
        assertThat(Fixtures.containersOf(Fixtures.instanceIdIn(dir.resolve("state")), "dev-open"))
                .as("no half-made sandbox")
                .isEmpty();
    }

    @Test
    void anUnknownRuleOrAMalformedColumnIsRefusedWhenTheProjectIsSaved() {
        ApiClient.Reply unknown = save("crm-bad", "{\"users.email\":\"fake_mail\"}");
        assertThat(unknown.status()).as(unknown.body()).isEqualTo(400);
        assertThat(unknown.body()).contains("users.email", "unknown rule 'fake_mail'", "keep_last(n)");
        ApiClient.Reply column = save("crm-bad", "{\"email\":\"hash\"}");
        assertThat(column.status()).as(column.body()).isEqualTo(400);
        assertThat(column.body()).contains("table.column");
        ApiClient.Reply keep = save("crm-bad", "{\"users.card_number\":\"keep_last(99)\"}");
        assertThat(keep.status()).as(keep.body()).isEqualTo(400);
        assertThat(keep.body()).contains("keep_last(n) takes n from 0 to 64");
        ApiClient.Reply good =
                save("crm-good", "{\"users.card_number\":\"keep_last(4)\",\"users.name\":{\"constant\":\"x\"}}");
        assertThat(good.status()).as(good.body()).isEqualTo(200);
        assertThat(api.admin("GET", "/api/projects/crm-good", null).body())
                .contains("\"public.users.card_number\":\"keep_last(4)\"", "\"constant\":\"x\"");
    }

    private static ApiClient.Reply save(String project, String maskJson) {
        return api.admin(
                "PUT",
                "/api/projects/" + project,
                "{\"name\":\"" + project + "\",\"sandbox_services\":[\"postgres\"],\"sandbox_seed\":{\"postgres\":"
                        + "{\"clone\":{\"url_env\":\"CRM_DB_URL\",\"data\":true,\"mask\":" + maskJson + "}}}}");
    }

    private static void assertNoOriginal(String where, String text) {
        assertThat(text).as(where).isNotNull();
        for (String original : originals) {
            assertThat(text).as("%s shows no original value", where).doesNotContain(original);
        }
        assertThat(text).as("%s shows no canary", where).doesNotContain(CANARY);
    }

    /** Project {@code project} with {@code seedJson}; agent {@code agent} working there; its request_sandbox. */
    private static ApiClient.Reply request(String project, String agent, String seedJson) {
        ApiClient.Reply saved = api.admin(
                "PUT",
                "/api/projects/" + project,
                "{\"name\":\"" + project + "\",\"sandbox_services\":[\"postgres\"],\"sandbox_seed\":{\"postgres\":"
                        + seedJson + "}}");
        answers.add(saved.body());
        assertThat(saved.status()).as(saved.body()).isEqualTo(200);
        api.orchestrator(
                "POST", "/api/agents/" + agent + "/spawn", "{\"role\":\"developer\",\"project\":\"" + project + "\"}");
        api.verb(agent, "give_me_work", "{\"project\":\"" + project + "\",\"task\":\"T-1\"}");
        ApiClient.Reply reply = api.verb(agent, "request_sandbox", "{}");
        answers.add(reply.body());
        assertThat(reply.body()).doesNotContain(SOURCE_PASSWORD);
        return reply;
    }

    private static String psql(String url, String sql) {
        return OfficialClients.run(
                List.of("psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql), Map.of());
    }

    private static boolean holds(Path file, String text) {
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).contains(text);
        } catch (IOException e) {
            return false;
        }
    }
}
