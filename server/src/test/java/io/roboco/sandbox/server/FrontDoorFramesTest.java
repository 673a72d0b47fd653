package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.FakeSettingsStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How deep the front door is: the frames of our own code a {@code request_sandbox} crosses from the edge (the HTTP verb
 * route, the MCP gate) to the container create, counted on the thread that took the request (parked while the set
 * starts) and on the worker that starts the container (the fake runtime's and this test's own frames not counted). The
 * ceiling is issue 19's: no more than the depth measured when the one front door was built, 16 frames over HTTP and 20
 * over MCP (16 and 18 when this test was written; a named sandbox's {@code request_sandbox}, through the same front
 * door since, 19 under the MCP ceiling; a count of frames does not depend on the machine's speed). A new
 * layer on the way fails here, printing the frames.
 */
class FrontDoorFramesTest {
    static final int HTTP_CEILING = 16;
    static final int MCP_CEILING = 20;

    @TempDir
    Path dir;

    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final AtomicReference<List<String>> seen = new AtomicReference<>();
    private TestServer t;
    private McpSyncClient mcp;

    @AfterEach
    void stop() {
        if (mcp != null) {
            mcp.closeGracefully();
        }
        if (t != null) {
            t.close();
        }
    }

    @Test
    void theHttpVerbReachesTheContainerCreateWithinTheCeiling() {
        start(frame -> frame.getClassName().equals("io.roboco.sandbox.server.http.AgentRoutes"));
        ApiClient.Reply r = t.api.verb("dev-1", "request_sandbox", "{\"services\":[\"postgres\"]}");
        assertThat(r.json()).containsEntry("ok", true);
        List<String> frames = seen.get();
        print("HTTP", frames);
        assertThat(frames).as("the frames from the verb route to the create").hasSizeLessThanOrEqualTo(HTTP_CEILING);
    }

    @Test
    void theMcpRequestSandboxReachesTheContainerCreateWithinTheCeiling() {
        start(frame -> frame.getClassName().equals("io.roboco.sandbox.mcp.Gate"));
        requestOverMcp(Map.of("services", List.of("postgres")));
        List<String> frames = seen.get();
        print("MCP", frames);
        assertThat(frames).as("the frames from the MCP gate to the create").hasSizeLessThanOrEqualTo(MCP_CEILING);
    }

    /** An agent's MCP {@code request_sandbox} with {@code arguments}, which must succeed. */
    private void requestOverMcp(Map<String, Object> arguments) {
        mcp = McpClients.asAgent(t, "dev-1");
        McpSchema.CallToolResult result = mcp.callTool(new McpSchema.CallToolRequest("request_sandbox", arguments));
        assertThat(result.isError()).as(String.valueOf(result.content())).isNotEqualTo(Boolean.TRUE);
    }

    @Test
    void theMcpRequestSandboxOfANameReachesTheContainerCreateWithinTheCeiling() {
        start(frame -> frame.getClassName().equals("io.roboco.sandbox.mcp.Gate"));
        requestOverMcp(Map.of("name", "scratch", "ttl", "20m", "services", List.of("postgres")));
        List<String> frames = seen.get();
        print("MCP (named)", frames);
        assertThat(frames)
                .as("the frames from the MCP gate to the create of a named sandbox")
                .hasSizeLessThanOrEqualTo(MCP_CEILING);
    }

    /** A server over the fake runtime whose first start records the frames: the requesting thread's, then the worker's. */
    private void start(Predicate<StackTraceElement> edge) {
        runtime.onStart(request -> {
            if (seen.get() != null) {
                return;
            }
            List<String> frames = new ArrayList<>();
            Thread.getAllStackTraces().forEach((thread, stack) -> {
                if (thread != Thread.currentThread() && Arrays.stream(stack).anyMatch(edge)) {
                    frames.addAll(ours(stack, edge));
                }
            });
            frames.addAll(ours(Thread.currentThread().getStackTrace(), f -> false));
            seen.compareAndSet(null, frames);
        });
        t = new TestServer(
                ServerConfig.defaults(dir)
                        .withPort(0)
                        .withFlag(true)
                        .withTokens(ApiClient.API_TOKEN, ApiClient.ADMIN_TOKEN),
                runtime,
                new FakeSettingsStore());
        t.working("dev-1", "developer");
    }

    /**
     * Our frames of {@code stack}, innermost first, up to and including the outermost one {@code edge} matches (all of
     * them when it matches none); the fake runtime's and this test's own frames are not counted.
     */
    private static List<String> ours(StackTraceElement[] stack, Predicate<StackTraceElement> edge) {
        int outer = stack.length - 1;
        for (int i = stack.length - 1; i >= 0; i--) {
            if (edge.test(stack[i])) {
                outer = i;
                break;
            }
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i <= outer; i++) {
            String cls = stack[i].getClassName();
            if (cls.startsWith("io.roboco.sandbox.")
                    && !cls.startsWith("io.roboco.sandbox.testkit.")
                    && !cls.startsWith(FrontDoorFramesTest.class.getName())) {
                out.add(cls.substring("io.roboco.sandbox.".length()) + "." + stack[i].getMethodName());
            }
        }
        return out;
    }

    private static void print(String door, List<String> frames) {
        System.out.println(door + " front door: " + frames.size() + " frames of ours to the container create:");
        frames.forEach(f -> System.out.println("  " + f));
    }
}
