package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code roboco-sandbox mcp} as a child JVM (this test's classpath, the jar's main class) bridging stdio to
 * the stub server's /mcp, driven by the MCP Java SDK's stdio client. The TypeScript client's run is the IT's.
 */
@SuppressWarnings("unchecked")
class McpStdioBridgeTest {
    @TempDir
    Path dir;

    private TestServer t;
    private McpSyncClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            try {
                client.closeGracefully();
            } catch (RuntimeException ignored) {
                // the child may have exited already
            }
        }
        if (t != null) {
            t.close();
        }
    }

    private Map<String, String> bridgeEnv(String token) {
        Map<String, String> env = new HashMap<>();
        env.put("ROBOCO_SANDBOX_URL", "http://127.0.0.1:" + t.server.port());
        if (token != null) {
            env.put("ROBOCO_SANDBOX_MCP_TOKEN", token);
        }
        return env;
    }

    private static List<String> command() {
        return List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                SandboxServer.class.getName(),
                "mcp");
    }

    private McpSyncClient stdio(String token) {
        List<String> cmd = command();
        ServerParameters params = ServerParameters.builder(cmd.get(0))
                .args(cmd.subList(1, cmd.size()))
                .env(bridgeEnv(token))
                .build();
        client = McpClient.sync(new StdioClientTransport(params, new JacksonMcpJsonMapper(new ObjectMapper())))
                .requestTimeout(Duration.ofSeconds(60))
                .initializationTimeout(Duration.ofSeconds(60))
                .build();
        client.initialize();
        return client;
    }

    private String mint(String slug) {
        return (String) t.api.orchestrator(
                        "POST", "/api/agents/" + slug + "/token", "{\"toolsets\":[\"core\",\"inspect\",\"data\"]}")
                .json()
                .get("token");
    }

    @Test
    void bridgeOffersTheTokensToolsAndForwardsEveryCallToTheServersGate() {
        t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        String token = mint("dev-1");
        McpSyncClient c = stdio(token);
        assertThat(c.getServerInfo().name()).isEqualTo("roboco-sandbox");
        assertThat(c.listTools().tools())
                .extracting(McpSchema.Tool::name)
                .contains(
                        "request_sandbox",
                        "release_sandbox",
                        "list_sandboxes",
                        "run_readonly_query",
                        "snapshot_schema",
                        "save_template",
                        "list_templates",
                        "diff_data")
                .hasSize(18);
        assertThat(c.listTools().tools())
                .filteredOn(tool -> tool.name().equals("release_sandbox"))
                .singleElement()
                .satisfies(
                        tool -> assertThat(tool.annotations().destructiveHint()).isTrue());

        McpSchema.CallToolResult granted = c.callTool(new McpSchema.CallToolRequest("request_sandbox", Map.of()));
        assertThat(granted.isError()).isFalse();
        assertThat((Map<String, Object>) granted.structuredContent()).containsEntry("ok", true);
        assertThat(t.runtime.runningCount()).isEqualTo(2L);

        assertThatThrownBy(() -> c.callTool(new McpSchema.CallToolRequest("drop_everything", Map.of())))
                .isInstanceOf(McpError.class)
                .hasMessageContaining("Unknown tool");
        assertThatThrownBy(() -> c.callTool(new McpSchema.CallToolRequest("request_sandbox", Map.of("services", 7))))
                .isInstanceOf(McpError.class)
                .satisfies(e -> assertThat(((McpError) e).getJsonRpcError().code())
                        .isEqualTo(McpSchema.ErrorCodes.INVALID_PARAMS));
        // The bridge reports a call of an unknown name to the server in the background (the local SDK answers it).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<String> audited;
        do {
            audited = t.store.recent("dev-1", null, 50).stream()
                    .map(r -> r.verb() + " " + r.decision())
                    .toList();
        } while (!audited.contains("mcp:drop_everything invalid") && System.nanoTime() < deadline && pause());
        assertThat(audited)
                .contains("request_sandbox granted", "mcp:drop_everything invalid", "mcp:request_sandbox invalid")
                .doesNotContain("mcp:request_sandbox allowed");

        t.api.orchestrator("DELETE", "/api/agents/dev-1", null);
        assertThatThrownBy(() -> c.callTool(new McpSchema.CallToolRequest("list_sandboxes", Map.of())))
                .as("a revoked token")
                .isInstanceOf(McpError.class)
                .hasMessageContaining("401");
    }

    @Test
    void withoutATokenTheBridgeRefusesToStartAndSaysWhichSetting() throws Exception {
        t = new TestServer(dir, true);
        Child child = runChild(bridgeEnv(null));
        assertThat(child.exit).isEqualTo(2);
        assertThat(child.stderr).contains("ROBOCO_SANDBOX_MCP_TOKEN is not set");
        assertThat(child.stdout).as("stdout is for MCP only").isEmpty();
    }

    @Test
    void aWrongTokenIsReportedAs401AndTheBridgeExits() throws Exception {
        t = new TestServer(dir, true);
        Child child = runChild(bridgeEnv("rbxa_wrong-token-wrong-token-wrong-token-x"));
        assertThat(child.exit).isEqualTo(1);
        assertThat(child.stderr).contains("HTTP 401").doesNotContain("rbxa_wrong-token");
        assertThat(child.stdout).isEmpty();
    }

    @Test
    void aMisspeltMcpSettingIsRefused() throws Exception {
        t = new TestServer(dir, true);
        Map<String, String> env = bridgeEnv(mint("dev-1"));
        env.put("ROBOCO_SANDBOX_MCP_TOKEM", "x");
        Child child = runChild(env);
        assertThat(child.exit).isEqualTo(2);
        assertThat(child.stderr).contains("ROBOCO_SANDBOX_MCP_TOKEM");
    }

    /** A poll interval between audit reads (the loop ends on the outcome or the deadline). */
    private static boolean pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }

    private record Child(int exit, String stdout, String stderr) {}

    private static Child runChild(Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command());
        pb.environment().keySet().removeIf(k -> k.startsWith("ROBOCO_SANDBOX_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS))
                .as("the bridge exits by itself")
                .isTrue();
        return new Child(
                p.exitValue(),
                new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
