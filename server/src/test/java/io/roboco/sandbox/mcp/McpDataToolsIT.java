package io.roboco.sandbox.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.provision.Psql;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The data tools as an agent uses them, with nothing of ours on the client side: the official MCP TypeScript SDK
 * client calls the tools over Streamable HTTP, and {@code psql} with the handed-out URL does the agent's own work on
 * the real Postgres in the real daemon. snapshot_schema → the agent adds a column and an index → diff_schema names
 * exactly those two; checkpoint_sandbox → the agent drops a table and inserts rows → rewind_sandbox, and the
 * unchanged URL holds the checkpoint's data; save_template keeps it on the server and list_templates shows it. Every
 * call is audited and none carries the password.
 */
@SuppressWarnings("unchecked")
class McpDataToolsIT {
    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "60s", null));

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void anAgentSnapshotsDiffsCheckpointsAndRewindsThroughTheOfficialClient() throws Exception {
        ApiClient api = SERVER.api();
        String agent = "mcp-data-1";
        api.working(agent, "mcp-data", "[\"postgres\"]");
        ApiClient.Reply minted = api.orchestrator("POST", "/api/agents/" + agent + "/token", null);
        assertThat(minted.status()).as("%s", minted).isEqualTo(200);
        String token = (String) minted.json().get("token");

        try (TypeScriptMcpClient client =
                TypeScriptMcpClient.http("http://127.0.0.1:" + SERVER.server().port() + "/mcp", token)) {
            assertThat(client.connect().ok()).isTrue();
            assertThat(client.listTools())
                    .extracting(t -> t.get("name"))
                    .contains(
                            "snapshot_schema",
                            "diff_schema",
                            "checkpoint_sandbox",
                            "rewind_sandbox",
                            "save_template",
                            "list_templates");

            TypeScriptMcpClient.Answer granted = client.call("request_sandbox", Map.of());
            assertThat(granted.isError())
                    .as("request_sandbox: %s", granted.json())
                    .isFalse();
            Map<String, String> env = (Map<String, String>) ((List<Map<String, Object>>)
                            ((Map<String, Object>) granted.structured().get("evidence")).get("sandboxes"))
                    .get(0)
                    .get("env");
            String url = env.get("ROBOCO_TEST_DB_URL");
            String password = env.get("ROBOCO_TEST_DB_PASSWORD");
            Psql.run(
                    url,
                    "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL);"
                            + " INSERT INTO customers VALUES (1, 'ada'), (2, 'grace');"
                            + " CREATE TABLE events (id int PRIMARY KEY, what text);"
                            + " INSERT INTO events VALUES (1, 'signup');");

            // snapshot, untouched diff, then exactly a column and an index
            TypeScriptMcpClient.Answer snapshot = ok(client.call("snapshot_schema", Map.of("name", "before")));
            assertThat(evidence(snapshot)).containsEntry("format_version", 1).containsKey("digest");
            assertThat(evidence(ok(client.call("diff_schema", Map.of("name", "before")))))
                    .containsEntry("empty", true);
            Psql.run(
                    url,
                    "ALTER TABLE customers ADD COLUMN email text; CREATE INDEX customers_name_idx ON customers (name);");
            Map<String, Object> diff = evidence(ok(client.call("diff_schema", Map.of("name", "before"))));
            assertThat(diff)
                    .containsEntry("empty", false)
                    .containsEntry("removed", List.of())
                    .containsEntry("changed", List.of());
            assertThat((List<Map<String, Object>>) diff.get("added"))
                    .containsExactly(
                            Map.of("kind", "column", "name", "public.customers.email"),
                            Map.of("kind", "index", "name", "public.customers_name_idx"));

            // checkpoint, damage, rewind: the same URL holds the checkpoint's data
            TypeScriptMcpClient.Answer checkpoint =
                    ok(client.call("checkpoint_sandbox", Map.of("name", "pre-migration")));
            assertThat(checkpoint.text()).contains("checkpoint 'pre-migration' made");
            Psql.run(url, "DROP TABLE customers; INSERT INTO events VALUES (2, 'oops'), (3, 'worse');");
            TypeScriptMcpClient.Answer rewind = ok(client.call("rewind_sandbox", Map.of("name", "pre-migration")));
            assertThat(rewind.text())
                    .contains("rewound to checkpoint 'pre-migration'")
                    .contains("same ROBOCO_TEST_DB_URL");
            assertThat(Psql.run(url, "SELECT string_agg(name, ',' ORDER BY id) FROM customers;"))
                    .isEqualTo("ada,grace");
            assertThat(Psql.run(url, "SELECT string_agg(what, ',' ORDER BY id) FROM events;"))
                    .isEqualTo("signup");
            assertThat(Psql.run(url, "SELECT count(*) FROM pg_indexes WHERE indexname = 'customers_name_idx';"))
                    .as("the checkpoint was taken after the index")
                    .isEqualTo("1");

            // the database as it is now, kept on the server as a template of the project
            TypeScriptMcpClient.Answer saved = ok(client.call("save_template", Map.of("name", "mcp-data-v1")));
            assertThat(saved.text()).contains("template 'mcp-data-v1' saved");
            TypeScriptMcpClient.Answer listed = ok(client.call("list_templates", Map.of()));
            assertThat((List<Map<String, Object>>) listed.structured().get("templates"))
                    .extracting(t -> t.get("name"))
                    .containsExactly("mcp-data-v1");
            assertThat(client.call("save_template", Map.of("name", "mcp-data-v1"))
                            .isError())
                    .as("a taken name without replace")
                    .isTrue();

            // refusals name what exists, and are tool errors, not protocol errors
            TypeScriptMcpClient.Answer unknown = client.call("rewind_sandbox", Map.of("name", "never"));
            assertThat(unknown.isError()).isTrue();
            assertThat(unknown.text()).contains("no checkpoint 'never'", "pre-migration");
            TypeScriptMcpClient.Answer badName = client.call("snapshot_schema", Map.of("name", "Not A Name"));
            assertThat(badName.ok() && !badName.isError())
                    .as("a name outside the schema's pattern is refused: %s", badName.json())
                    .isFalse();

            String audit = api.admin("GET", "/api/audit?agent=" + agent + "&limit=200", null)
                    .body();
            assertThat(audit)
                    .contains(
                            "snapshot_schema",
                            "diff_schema",
                            "checkpoint_sandbox",
                            "rewind_sandbox",
                            "save_template",
                            "list_templates");
            assertThat(audit).doesNotContain(password).doesNotContain(token);
        }
    }

    private static TypeScriptMcpClient.Answer ok(TypeScriptMcpClient.Answer answer) {
        assertThat(answer.isError()).as("%s", answer.json()).isFalse();
        return answer;
    }

    private static Map<String, Object> evidence(TypeScriptMcpClient.Answer answer) {
        return (Map<String, Object>) answer.structured().get("evidence");
    }
}
