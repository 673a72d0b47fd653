package io.roboco.sandbox.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.it.LogCapture;
import io.roboco.sandbox.mcp.TypeScriptMcpClient;
import io.roboco.sandbox.provision.Psql;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One guard chain for every road (#18 item 4): a reviewer (whose role carries no sandbox verb) and a developer whose task
 * has ended walk every tool an agent sees over MCP (the official TypeScript client) and every sandbox verb over HTTP,
 * each pointed at the ended developer's live named sandbox, which holds a secret row. Every call that would reach a
 * database, make a sandbox or lengthen one is refused by the same chain (role, then task), and audited; what only lets
 * an agent see or remove its own (list_sandboxes, release_sandbox) stays open to the ended developer and shut to the
 * reviewer. The agents' tokens open none of the HTTP API. Afterwards the sandboxes, templates and the secret database
 * are as they were, and a bystander of another project is unharmed.
 */
@SuppressWarnings("unchecked")
class HostileRolesIT {
    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "60s", null));

    private static final String PROJECT = "roles";
    private static final String REVIEWER = "roles-rev";
    private static final String ENDED = "roles-ended";
    /** What only lets an agent see or remove its own: open to an agent whose task ended (its role carries release_sandbox). */
    private static final Set<String> CLEANUP_TOOLS = Set.of("list_sandboxes", "release_sandbox");

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aReviewerAndAnEndedAgentAreRefusedOnEveryRoad() throws Exception {
        ApiClient api = SERVER.api();
        Bystander bystander = Bystander.standing(api, "roles-bystander");

        // The ended developer, while it still worked: a named sandbox (the named road) with a secret in it.
        api.working(ENDED, "developer", PROJECT, "[\"postgres\"]");
        api.working(REVIEWER, "reviewer", PROJECT, "[\"postgres\"]");
        String endedToken = token(api, ENDED);
        String reviewerToken = token(api, REVIEWER);
        String namedId;
        String url;
        try (TypeScriptMcpClient client = client(endedToken)) {
            TypeScriptMcpClient.Answer made = client.call("request_sandbox", Map.of("name", "left"));
            assertThat(made.isError())
                    .as("the developer's named sandbox: %s", made.json())
                    .isFalse();
            Map<String, Object> sandbox =
                    (Map<String, Object>) made.structured().get("sandbox");
            namedId = (String) sandbox.get("id");
            Map<String, String> env = (Map<String, String>)
                    ((List<Map<String, Object>>) sandbox.get("services")).get(0).get("env");
            url = env.get("ROBOCO_TEST_DB_URL");
        }
        Psql.run(
                url,
                "CREATE TABLE secrets (id int PRIMARY KEY, value text); INSERT INTO secrets VALUES (1, 'the-secret');");
        assertThat(api.verb(ENDED, "i_am_done", "{}").ok())
                .as("the developer's task ends")
                .isTrue();

        String sandboxesBefore = sandboxes(api);
        String templatesBefore = api.admin("GET", "/api/templates", null).body();
        String databasesBefore = Psql.run(url, "SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database;");

        int attempts = 0;
        int refused = 0;
        List<String> wrong = new ArrayList<>();
        Map<String, Integer> refusedBy = new TreeMap<>();
        try (LogCapture logs = new LogCapture()) {
            // MCP: every tool an agent can see (a developer's token of every toolset lists them), with the reviewer's
            // token and with the ended developer's. The reviewer's lists none of them, yet is refused calling each.
            Set<String> tools = new TreeSet<>();
            try (TypeScriptMcpClient client = client(endedToken)) {
                client.listTools().forEach(t -> tools.add((String) t.get("name")));
            }
            for (String caller : List.of(REVIEWER, ENDED)) {
                try (TypeScriptMcpClient client = client(caller.equals(REVIEWER) ? reviewerToken : endedToken)) {
                    if (caller.equals(REVIEWER)) {
                        assertThat(client.listTools())
                                .as("a reviewer's token lists no tool")
                                .isEmpty();
                    }
                    Map<String, List<Map<String, Object>>> calls = agentCalls(namedId);
                    assertThat(calls.keySet())
                            .as("every tool an agent sees is walked (add a new tool's calls here)")
                            .containsExactlyInAnyOrderElementsOf(tools);
                    for (String tool : tools) {
                        if (caller.equals(ENDED) && tool.equals("release_sandbox")) {
                            continue; // cleanup is open to it: tried last, after the state is compared
                        }
                        for (Map<String, Object> args : calls.get(tool)) {
                            attempts++;
                            TypeScriptMcpClient.Answer a = client.call(tool, args);
                            boolean expectRefusal = caller.equals(REVIEWER) || !CLEANUP_TOOLS.contains(tool);
                            String why = caller.equals(REVIEWER) ? "does not carry" : "no active, project-bound task";
                            boolean wasRefused = a.ok()
                                    && a.isError()
                                    && "refused".equals(a.structured().get("error"))
                                    && a.text().contains(why);
                            if (wasRefused) {
                                refused++;
                                refusedBy.merge(caller + " mcp", 1, Integer::sum);
                            }
                            if (expectRefusal != wasRefused) {
                                wrong.add(caller + " " + tool + args + " -> " + a.json());
                            }
                            if (!expectRefusal) {
                                assertThat(a.text())
                                        .as("%s %s names no credential", caller, tool)
                                        .doesNotContain("the-secret")
                                        .doesNotContain("PASSWORD");
                            }
                        }
                    }
                }
            }
            // HTTP: every sandbox verb the orchestrator can call on the agents' behalf.
            for (String caller : List.of(REVIEWER, ENDED)) {
                for (Map.Entry<String, String> verb : httpVerbs().entrySet()) {
                    attempts++;
                    ApiClient.Reply r = api.verb(caller, verb.getKey(), verb.getValue());
                    boolean cleanup = caller.equals(ENDED) && verb.getKey().equals("release_sandbox");
                    String why = caller.equals(REVIEWER) ? "does not carry" : "no active, project-bound task";
                    boolean wasRefused = r.status() == 200
                            && "refused".equals(r.json().get("error"))
                            && String.valueOf(r.json().get("reason")).contains(why);
                    if (wasRefused) {
                        refused++;
                        refusedBy.merge(caller + " http", 1, Integer::sum);
                    }
                    if (cleanup ? !r.ok() : !wasRefused) {
                        wrong.add(caller + " POST verbs/" + verb.getKey() + " -> " + r);
                    }
                }
            }
            // The agents' MCP tokens open none of the HTTP API.
            for (String token : List.of(reviewerToken, endedToken)) {
                for (String[] route : List.of(
                        new String[] {"GET", "/api/sandboxes", null},
                        new String[] {
                            "POST",
                            "/api/sandboxes",
                            "{\"owner\":\"" + REVIEWER + "\",\"project\":\"" + PROJECT + "\",\"name\":\"x\"}"
                        },
                        new String[] {"GET", "/api/templates", null},
                        new String[] {"GET", "/api/audit", null},
                        new String[] {"POST", "/api/sandboxes/" + namedId + "/checkpoints", "{\"name\":\"c\"}"},
                        new String[] {"POST", "/api/agents/" + REVIEWER + "/verbs/request_sandbox", "{}"},
                        new String[] {"POST", "/api/agents/" + REVIEWER + "/token", null})) {
                    attempts++;
                    ApiClient.Reply r = api.send(route[0], route[1], token, route[2]);
                    if (r.status() == 401 || r.status() == 403) {
                        refused++;
                        refusedBy.merge("token http", 1, Integer::sum);
                    } else {
                        wrong.add("an agent's token on " + route[0] + " " + route[1] + " -> " + r.status());
                    }
                }
            }
            assertThat(logs.logged() + logs.printed()).as("no OutOfMemoryError").doesNotContain("OutOfMemoryError");
        }

        assertThat(wrong).as("calls the chain answered other than expected").isEmpty();
        assertThat(sandboxes(api)).as("no sandbox made, lengthened or removed").isEqualTo(sandboxesBefore);
        assertThat(api.admin("GET", "/api/templates", null).body())
                .as("no template saved")
                .isEqualTo(templatesBefore);
        assertThat(Psql.run(url, "SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database;"))
                .as("no checkpoint or rewind touched the database")
                .isEqualTo(databasesBefore);
        assertThat(Psql.run(url, "SELECT value FROM secrets WHERE id = 1;")).isEqualTo("the-secret");
        String audit = api.admin("GET", "/api/audit?agent=" + REVIEWER + "&limit=500", null)
                .body();
        assertThat(audit)
                .as("the reviewer's refusals are audited")
                .contains("does not carry")
                .doesNotContain("the-secret");

        // Cleanup stays open to the ended developer: its named sandbox goes.
        try (TypeScriptMcpClient client = client(endedToken)) {
            TypeScriptMcpClient.Answer released = client.call("release_sandbox", Map.of("sandbox", namedId));
            assertThat(released.isError())
                    .as("an ended agent releases its own: %s", released.json())
                    .isFalse();
        }
        assertThat(api.admin("GET", "/api/sandboxes/" + namedId, null).body()).contains("\"state\":\"deleted\"");

        bystander.assertUnharmed();
        boolean healthy = Bystander.healthy(api);
        StringBuilder by = new StringBuilder();
        refusedBy.forEach((road, n) -> by.append(by.length() == 0 ? "" : ",")
                .append(road.replace(' ', '_'))
                .append('=')
                .append(n));
        Bystander.figure("roles", attempts, refused, healthy, "refused_by=" + by);
        assertThat(healthy).isTrue();
    }

    /** Valid arguments for every tool an agent sees, aimed at {@code sandbox} (the ended developer's named one). */
    private static Map<String, List<Map<String, Object>>> agentCalls(String sandbox) {
        Map<String, List<Map<String, Object>>> calls = new LinkedHashMap<>();
        calls.put(
                "request_sandbox",
                List.of(Map.of(), Map.of("name", "sneaky"), Map.of("services", List.of("postgres"))));
        calls.put("release_sandbox", List.of(Map.of("sandbox", sandbox)));
        calls.put("list_sandboxes", List.of(Map.of()));
        calls.put("extend_sandbox", List.of(Map.of("sandbox", sandbox, "ttl", "2h"), Map.of("ttl", "2h")));
        calls.put("snapshot_schema", List.of(Map.of("name", "s1", "sandbox", sandbox), Map.of("name", "s1")));
        calls.put("diff_schema", List.of(Map.of("name", "s1", "sandbox", sandbox)));
        calls.put("checkpoint_sandbox", List.of(Map.of("name", "c1", "sandbox", sandbox), Map.of("name", "c1")));
        calls.put("rewind_sandbox", List.of(Map.of("name", "c1", "sandbox", sandbox)));
        calls.put("diff_data", List.of(Map.of("checkpoint", "c1", "sandbox", sandbox), Map.of("checkpoint", "c1")));
        calls.put(
                "save_template",
                List.of(Map.of("name", "t1", "sandbox", sandbox), Map.of("name", "t1", "replace", true)));
        calls.put("list_templates", List.of(Map.of()));
        calls.put("list_schemas", List.of(Map.of("sandbox", sandbox), Map.of()));
        calls.put("list_tables", List.of(Map.of("sandbox", sandbox)));
        calls.put("describe_table", List.of(Map.of("table", "secrets", "sandbox", sandbox)));
        calls.put(
                "run_readonly_query",
                List.of(Map.of("sql", "SELECT value FROM secrets", "sandbox", sandbox), Map.of("sql", "SELECT 1")));
        calls.put("explain_query", List.of(Map.of("sql", "SELECT value FROM secrets", "sandbox", sandbox)));
        calls.put(
                "suggest_indexes",
                List.of(Map.of("sql", "SELECT value FROM secrets WHERE id = 1", "sandbox", sandbox)));
        calls.put("describe_sandbox", List.of(Map.of("sandbox", sandbox)));
        return calls;
    }

    /** Every sandbox verb of the HTTP contract, with valid arguments. */
    private static Map<String, String> httpVerbs() {
        Map<String, String> verbs = new LinkedHashMap<>();
        verbs.put("request_sandbox", "{}");
        verbs.put("release_sandbox", "{}");
        verbs.put("snapshot_schema", "{\"name\":\"s1\"}");
        verbs.put("diff_schema", "{\"name\":\"s1\"}");
        verbs.put("checkpoint_sandbox", "{\"name\":\"c1\"}");
        verbs.put("rewind_sandbox", "{\"name\":\"c1\"}");
        verbs.put("diff_data", "{\"checkpoint\":\"c1\"}");
        verbs.put("save_template", "{\"name\":\"t1\"}");
        return verbs;
    }

    /** Every sandbox record (all states) with its expiry: what a refused call must leave as it was. */
    private static String sandboxes(ApiClient api) {
        List<Map<String, Object>> all = (List<Map<String, Object>>)
                api.admin("GET", "/api/sandboxes?state=all", null).json().get("sandboxes");
        List<String> out = new ArrayList<>();
        for (Map<String, Object> s : all) {
            out.add(s.get("id") + " " + s.get("owner") + " " + s.get("state") + " " + s.get("expires"));
        }
        out.sort(null);
        return String.join("\n", out);
    }

    private static String token(ApiClient api, String slug) {
        ApiClient.Reply minted = api.orchestrator(
                "POST", "/api/agents/" + slug + "/token", "{\"toolsets\":[\"core\",\"inspect\",\"data\"]}");
        assertThat(minted.status()).as("%s", minted).isEqualTo(200);
        return (String) minted.json().get("token");
    }

    private static TypeScriptMcpClient client(String token) {
        TypeScriptMcpClient client =
                TypeScriptMcpClient.http("http://127.0.0.1:" + SERVER.server().port() + "/mcp", token);
        assertThat(client.connect().ok()).isTrue();
        return client;
    }
}
