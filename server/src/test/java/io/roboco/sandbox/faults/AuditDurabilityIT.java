package io.roboco.sandbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.ChildServer;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 21: every call is durably audited before it is answered, group commit or not. Several agents' cache hits are
 * sent at once to the standalone server (a child JVM on the embedded store), and the server is killed with
 * {@code kill -9} the moment the last answer arrives: opening its state directory afterwards finds every one of those
 * calls' audit records. A record held in memory, or written after the answer, would be lost by the kill.
 */
class AuditDurabilityIT {
    private static final List<String> AGENTS = List.of("durable-a", "durable-b", "durable-c", "durable-d");
    private static Path dir;
    private static ChildServer server;

    @BeforeAll
    static void stateDir() throws Exception {
        dir = Files.createTempDirectory("roboco-audit-kill-it");
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (server != null) {
            server.close();
        }
        Fixtures.removeAllOf(Fixtures.instanceIdIn(dir.resolve("state")));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void theCallsAnsweredRightBeforeAKill9AreInTheAuditTrail() throws Exception {
        Map<String, String> env = Fixtures.serverEnv(dir.resolve("state"), "1h", "2m", "60s");
        env.put("ROBOCO_SANDBOX_READOPT", "false");
        server = ChildServer.start(env, ChildServer.freePort(), dir.resolve("server.log"));
        ApiClient api = server.api;
        for (String agent : AGENTS) {
            api.working(agent, "durable", "[\"redis\"]");
            ApiClient.Reply cold = api.requestSandboxRetrying(agent, 3);
            assertThat(cold.ok()).as(cold.toString()).isTrue();
        }

        ExecutorService threads = Executors.newFixedThreadPool(AGENTS.size());
        CountDownLatch go = new CountDownLatch(1);
        List<ApiClient.Reply> hits = new ArrayList<>();
        try {
            List<Future<ApiClient.Reply>> calls = new ArrayList<>();
            for (String agent : AGENTS) {
                calls.add(threads.submit(() -> {
                    go.await();
                    return api.requestSandbox(agent);
                }));
            }
            go.countDown();
            for (Future<ApiClient.Reply> f : calls) {
                hits.add(f.get(60, TimeUnit.SECONDS));
            }
            server.kill9(); // right after the last answer: nothing the server did later can count
            server = null;
        } finally {
            threads.shutdownNow();
        }
        hits.forEach(r -> assertThat(r.ok()).as(r.toString()).isTrue());

        try (JdbcSettingsStore store = JdbcSettingsStore.embedded(dir.resolve("state"))) {
            for (String agent : AGENTS) {
                List<AuditRecord> granted = store.recent(agent, "granted", 50).stream()
                        .filter(r -> r.verb().equals("request_sandbox"))
                        .toList();
                assertThat(granted)
                        .as(agent + "'s cold start and its cache hit, both answered before the kill")
                        .hasSize(2);
                assertThat(granted.get(0).reason()).as("newest first: the hit").startsWith("cache hit");
            }
        }
    }
}
