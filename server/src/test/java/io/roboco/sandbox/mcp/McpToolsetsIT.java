package io.roboco.sandbox.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MCP toolsets through the official MCP TypeScript SDK client (npm {@code @modelcontextprotocol/sdk}) against the real
 * server on real Docker: a token minted for each toolset lists only that toolset's tools, at most 10, and its
 * {@code tools/list} answer stays within the byte budget stated here; the default token (core + data) requests a real
 * sandbox and is refused an inspect tool with the toolset named; a reviewer's token lists no provisioning tool, whatever
 * its toolsets, and is refused calling one.
 */
@SuppressWarnings("unchecked")
class McpToolsetsIT {
    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "60s", null));

    /**
     * The {@code tools/list} result as JSON (UTF-8 bytes: what lands in a model's context) per toolset. Measured
     * 2026-12-03 with the TypeScript SDK 1.32.2: core 4,732, inspect 5,408, data 5,439 bytes (core and data with the
     * idempotency_key argument of request_sandbox and checkpoint_sandbox; before it 4,455 and 5,162). The budgets leave
     * room for a longer description, not for another tool. Issue 23's diff_data joined data (about 885 bytes of it,
     * measured the same way): data's budget is 6,650.
     */
    static final Map<String, Integer> BYTE_BUDGET = Map.of("core", 5_000, "inspect", 6_000, "data", 6_650);

    /** Tools that make, lengthen, copy or remove a sandbox or its data: what a reviewer must never be offered. */
    static final Set<String> PROVISIONING = Set.of(
            "request_sandbox",
            "release_sandbox",
            "extend_sandbox",
            "checkpoint_sandbox",
            "rewind_sandbox",
            "save_template",
            "snapshot_schema");

    private static String url() {
        return "http://127.0.0.1:" + SERVER.server().port() + "/mcp";
    }

    private static String mint(ApiClient api, String slug, String body) {
        ApiClient.Reply r = api.orchestrator("POST", "/api/agents/" + slug + "/token", body);
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        return (String) r.json().get("token");
    }

    private static TypeScriptMcpClient connected(String token) {
        TypeScriptMcpClient client = TypeScriptMcpClient.http(url(), token);
        assertThat(client.connect().ok()).isTrue();
        return client;
    }

    private static List<String> names(TypeScriptMcpClient.ToolList list) {
        List<String> out = new ArrayList<>();
        list.tools().forEach(t -> out.add((String) t.get("name")));
        return out;
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void eachToolsetListsAtMostTenToolsWithinItsByteBudget() {
        ApiClient api = SERVER.api();
        api.working("ts-sets-dev", "ts-sets", "[\"postgres\"]");
        Map<String, Integer> measured = new LinkedHashMap<>();
        for (Toolset toolset : Toolset.values()) {
            String token = mint(api, "ts-sets-dev", "{\"toolsets\":[\"" + toolset.id() + "\"]}");
            try (TypeScriptMcpClient client = connected(token)) {
                TypeScriptMcpClient.ToolList listed = client.listToolsSized();
                assertThat(names(listed))
                        .as("toolset %s lists exactly its tools", toolset.id())
                        .containsExactlyInAnyOrderElementsOf(toolset.tools())
                        .hasSizeLessThanOrEqualTo(10);
                measured.put(toolset.id(), listed.bytes());
            }
        }
        String figures = measured.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue() + "B (budget " + BYTE_BUDGET.get(e.getKey()) + ")")
                .reduce((a, b) -> a + ", " + b)
                .orElse("");
        System.out.println("tools/list size per toolset: " + figures);
        measured.forEach((id, bytes) -> assertThat(bytes)
                .as("tools/list of toolset %s in bytes (%s)", id, figures)
                .isLessThanOrEqualTo(BYTE_BUDGET.get(id)));
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void theDefaultTokenProvisionsAndIsRefusedAToolOutsideItsToolsets() {
        ApiClient api = SERVER.api();
        api.working("ts-sets-default", "ts-sets", "[\"postgres\"]");
        try (TypeScriptMcpClient client = connected(mint(api, "ts-sets-default", null))) {
            TypeScriptMcpClient.ToolList listed = client.listToolsSized();
            List<String> expected = new ArrayList<>(Toolset.CORE.tools());
            expected.addAll(Toolset.DATA.tools());
            assertThat(names(listed))
                    .containsExactlyInAnyOrderElementsOf(expected)
                    .hasSize(11);

            TypeScriptMcpClient.Answer granted = client.call("request_sandbox", Map.of());
            assertThat(granted.isError()).as("%s", granted.json()).isFalse();
            assertThat(granted.text()).contains("ROBOCO_TEST_DB_URL=");

            TypeScriptMcpClient.Answer refused = client.call("list_tables", Map.of());
            assertThat(refused.ok())
                    .as("a tool result, not a protocol error: %s", refused.json())
                    .isTrue();
            assertThat(refused.isError()).isTrue();
            assertThat(refused.structured()).containsEntry("error", "refused").containsEntry("toolset", "inspect");
            assertThat(refused.text())
                    .contains("list_tables is in the MCP toolset 'inspect', which this token was not minted for")
                    .contains("{\"toolsets\":[\"core\",\"data\",\"inspect\"]}");
            assertThat(client.call("release_sandbox", Map.of()).isError()).isFalse();
        }
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aReviewersTokenListsNoProvisioningTool() {
        ApiClient api = SERVER.api();
        api.working("ts-sets-rev", "reviewer", "ts-sets", "[\"postgres\"]");
        for (String body : new String[] {null, "{\"toolsets\":[\"core\",\"inspect\",\"data\"]}"}) {
            try (TypeScriptMcpClient client = connected(mint(api, "ts-sets-rev", body))) {
                List<String> listed = names(client.listToolsSized());
                assertThat(listed).as("minted with %s", body).doesNotContainAnyElementsOf(PROVISIONING);
                assertThat(listed)
                        .as("a reviewer's role carries no sandbox verb")
                        .isEmpty();
                TypeScriptMcpClient.Answer refused = client.call("request_sandbox", Map.of());
                assertThat(refused.isError()).isTrue();
                assertThat(refused.structured()).containsEntry("error", "refused");
            }
        }
        assertThat(api.admin("GET", "/api/sandboxes?owner=ts-sets-rev&state=all", null)
                        .body())
                .as("the reviewer made nothing")
                .doesNotContain("\"id\"");
    }
}
