package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.roboco.sandbox.mcp.Toolset;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MCP toolsets over the stub server (the MCP Java SDK's client; {@code McpToolsetsIT} is the TypeScript client's): a
 * token is minted for toolsets, {@code tools/list} shows only theirs (and only what the role may call), a call outside
 * them is refused naming the toolset that has it, and bad mint bodies are 400s.
 */
@SuppressWarnings("unchecked")
class McpToolsetsTest {
    @TempDir
    Path dir;

    private TestServer t;
    private final List<McpSyncClient> clients = new ArrayList<>();

    @AfterEach
    void stop() {
        clients.forEach(c -> {
            try {
                c.closeGracefully();
            } catch (RuntimeException ignored) {
                // the server may already be gone
            }
        });
        if (t != null) {
            t.close();
        }
    }

    private ApiClient.Reply mint(String slug, String body) {
        return t.api.orchestrator("POST", "/api/agents/" + slug + "/token", body);
    }

    private McpSyncClient client(String token) {
        McpSyncClient client = McpClients.connect(t.server.port(), token, Duration.ofSeconds(30));
        clients.add(client);
        return client;
    }

    private List<String> toolNames(ApiClient.Reply minted) {
        assertThat(minted.status()).as(minted.body()).isEqualTo(200);
        return client((String) minted.json().get("token")).listTools().tools().stream()
                .map(McpSchema.Tool::name)
                .toList();
    }

    @Test
    void everyToolsetHoldsAtMostTenToolsAndTheDefaultTokenIsCoreAndData() {
        t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        for (Toolset toolset : Toolset.values()) {
            assertThat(toolset.tools()).as("toolset %s", toolset.id()).hasSizeLessThanOrEqualTo(Toolset.MAX_TOOLS);
        }
        ApiClient.Reply minted = mint("dev-1", null);
        assertThat(minted.json()).containsEntry("toolsets", List.of("core", "data"));
        List<String> expected = new ArrayList<>(Toolset.CORE.tools());
        expected.addAll(Toolset.DATA.tools());
        assertThat(toolNames(minted))
                .containsExactlyInAnyOrderElementsOf(expected)
                .hasSize(11);
    }

    @Test
    void aTokenListsOnlyItsToolsets() {
        t = new TestServer(dir, true);
        t.working("qa-1", "qa");
        for (Toolset toolset : Toolset.values()) {
            ApiClient.Reply minted = mint("qa-1", "{\"toolsets\":[\"" + toolset.id() + "\"]}");
            assertThat(minted.json()).containsEntry("toolsets", List.of(toolset.id()));
            assertThat(toolNames(minted)).as(toolset.id()).containsExactlyInAnyOrderElementsOf(toolset.tools());
        }
        assertThat(toolNames(mint("qa-1", "{\"toolsets\":[\"inspect\",\"core\"]}")))
                .hasSize(Toolset.CORE.tools().size() + Toolset.INSPECT.tools().size());
    }

    @Test
    void aCallOutsideTheTokensToolsetsIsRefusedNamingTheToolsetThatHasIt() {
        t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        McpSyncClient inspectOnly = client(
                (String) mint("dev-1", "{\"toolsets\":[\"inspect\"]}").json().get("token"));
        McpSchema.CallToolResult refused =
                inspectOnly.callTool(new McpSchema.CallToolRequest("request_sandbox", Map.of()));
        assertThat(refused.isError()).isTrue();
        Map<String, Object> body = (Map<String, Object>) refused.structuredContent();
        assertThat(body)
                .containsEntry("error", "refused")
                .containsEntry("retryable", false)
                .containsEntry("toolset", "core");
        assertThat((String) body.get("reason"))
                .contains("request_sandbox is in the MCP toolset 'core'")
                .contains("it opens: inspect")
                .contains("{\"toolsets\":[\"inspect\",\"core\"]}");
        assertThat(t.runtime.startCount()).as("nothing was provisioned").isZero();
        assertThat(t.api.admin("GET", "/api/audit?agent=dev-1", null).body())
                .as("the refusal is audited")
                .contains("mcp:request_sandbox")
                .contains("denied");
    }

    @Test
    void aReviewersTokenListsNoSandboxToolWhateverItsToolsets() {
        t = new TestServer(dir, true);
        t.working("rev-1", "reviewer");
        assertThat(toolNames(mint("rev-1", null))).isEmpty();
        ApiClient.Reply every = mint("rev-1", "{\"toolsets\":[\"core\",\"inspect\",\"data\"]}");
        McpSyncClient reviewer = client((String) every.json().get("token"));
        assertThat(reviewer.listTools().tools()).isEmpty();
        McpSchema.CallToolResult refused =
                reviewer.callTool(new McpSchema.CallToolRequest("request_sandbox", Map.of()));
        assertThat(refused.isError()).isTrue();
        assertThat((String) ((Map<String, Object>) refused.structuredContent()).get("reason"))
                .isEqualTo("role 'reviewer' does not carry request_sandbox; only developer and qa do");
    }

    @Test
    void badMintBodiesAre400sNamingTheKnownToolsets() {
        t = new TestServer(dir, true);
        ApiClient.Reply unknown = mint("dev-1", "{\"toolsets\":[\"core\",\"admin\"]}");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.body())
                .contains("unknown toolset 'admin'")
                .contains("core (request_sandbox, release_sandbox, list_sandboxes, extend_sandbox)");
        assertThat(mint("dev-1", "{\"toolsets\":[]}").body()).contains("non-empty array");
        assertThat(mint("dev-1", "{\"toolsets\":\"core\"}").status()).isEqualTo(400);
        assertThat(mint("dev-1", "{\"toolsets\":[1]}").status()).isEqualTo(400);
        ApiClient.Reply extra = mint("dev-1", "{\"role\":\"admin\"}");
        assertThat(extra.status()).isEqualTo(400);
        assertThat(extra.body()).contains("unknown field 'role'");
    }
}
