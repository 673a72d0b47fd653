package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.testkit.ApiClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing a server ends every thread it started: Jetty's, the janitor's, the warm pool's, and the MCP SDK's session
 * sweeper (which mcp-core 2.1.0 leaves running after its transport closes), so an embedder's JVM can exit.
 */
class ServerThreadsTest {
    /** Daemon pools the JDK and Reactor share across a whole JVM (started on first use by anyone, never ours to end). */
    private static final List<String> JVM_SHARED = List.of(
            "ForkJoinPool.commonPool",
            "boundedElastic",
            "parallel-",
            "HttpClient-",
            "Common-Cleaner",
            "process reaper",
            "Attach Listener",
            "surefire");

    @TempDir
    Path dir;

    @Test
    void closingTheServerEndsEveryThreadItStartedIncludingTheMcpSessionSweeper() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        TestServer t = new TestServer(dir, true);
        int status = openMcpSession(http, t);
        assertThat(status).as("an MCP session opened").isEqualTo(200);
        assertThat(started(before))
                .as("the server runs the MCP SDK's session sweeper")
                .anyMatch(th -> th.getName().startsWith("streamable-http-server-transport-session-sweeper"));

        t.close();

        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<Thread> left = started(before);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            left.get(0).join(200);
            left = started(before);
        }
        assertThat(left)
                .as("threads the server started and left running after close: %s", describe(left))
                .isEmpty();
    }

    private static int openMcpSession(HttpClient http, TestServer t) throws Exception {
        HttpRequest initialize = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + t.server.port() + "/mcp"))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + ApiClient.ADMIN_TOKEN)
                .POST(
                        HttpRequest.BodyPublishers.ofString(
                                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                                        + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"))
                .build();
        return http.send(initialize, HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    private static List<Thread> started(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(th -> !before.contains(th))
                .filter(th -> !(th.isDaemon() && JVM_SHARED.stream().anyMatch(th.getName()::startsWith)))
                .toList();
    }

    private static String describe(List<Thread> threads) {
        return threads.stream()
                .map(th -> th.getName() + (th.isDaemon() ? " (daemon)" : ""))
                .collect(Collectors.joining(", "));
    }
}
