package io.roboco.sandbox.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.roboco.sandbox.it.ChildServer;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.Probe;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code kill -9} of the standalone server (a child JVM) with several agents' sandboxes live, then a
 * restart on the same state directory with re-adoption off ({@code ROBOCO_SANDBOX_READOPT=false}, the
 * seed's behaviour): the janitor's first sweep past the grace window leaves no orphan, the next
 * request_sandbox gives each agent fresh working credentials, and the old ones fail loudly. (With
 * re-adoption on, the default, the same kill keeps every sandbox: restart.RestartKeepsSandboxesIT.)
 */
class ServerKillIT {
    private static final List<String> AGENTS = List.of("crash-a", "crash-b", "crash-c");
    private static final String GRACE = "20s";
    private static Path dir;
    private static ChildServer server;

    @BeforeAll
    static void stateDir() throws Exception {
        dir = Files.createTempDirectory("roboco-kill-it");
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (server != null) {
            server.close();
        }
        int left = Fixtures.removeAllOf(Fixtures.instanceIdIn(dir.resolve("state")));
        System.out.println("ServerKillIT cleanup removed " + left + " container(s)");
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void afterKill9AndRestartNoOrphanIsLeftAndAgentsGetFreshWorkingCredentials() throws Exception {
        Map<String, String> env = Fixtures.serverEnv(dir.resolve("state"), "1s", GRACE, "15s");
        env.put("ROBOCO_SANDBOX_READOPT", "false");
        int port = ChildServer.freePort();
        Path log = dir.resolve("server.log");
        server = ChildServer.start(env, port, log);
        ApiClient api = server.api;

        Map<String, Map<String, Map<String, String>>> old = new LinkedHashMap<>();
        for (String agent : AGENTS) {
            api.working(agent, "crash", "[\"postgres\",\"redis\"]");
            ApiClient.Reply r = api.requestSandboxRetrying(agent, 3);
            assertThat(r.ok()).as("%s", r).isTrue();
            old.put(agent, r.grants());
            r.grants()
                    .forEach((service, creds) -> assertThat(Probe.tryUse(service, creds))
                            .as(agent + " " + service)
                            .isNull());
        }
        String instance = Fixtures.instanceIdIn(dir.resolve("state"));
        int live = Fixtures.runningOf(instance).size();
        assertThat(live).isEqualTo(AGENTS.size() * 2);

        long killedAt = System.nanoTime();
        server.kill9();
        server = null;
        assertThat(Fixtures.runningOf(instance))
                .as("sandboxes outlive a kill -9: they are orphans now")
                .hasSize(live);

        server = ChildServer.start(env, port, log);
        api = server.api;
        long restartedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);

        // The first sweep that sees the orphans past the grace window removes them all.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> orphans = Fixtures.containersOf(instance);
        while (!orphans.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(200);
            orphans = Fixtures.containersOf(instance);
        }
        long sweptMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        Fixtures.figure("ServerKillIT orphans left after the first sweep past grace: " + orphans.size() + " (of " + live
                + " live at kill -9; restart healthy after " + restartedMs + " ms, all swept " + sweptMs
                + " ms after the kill, grace "
                + GRACE + ", tick 1s)");
        assertThat(orphans).isEmpty();
        String audit =
                api.admin("GET", "/api/audit?agent=crash-a&limit=50", null).body();
        assertThat(audit).contains("janitor_sweep").contains("\"removed\"");

        int fresh = 0;
        int oldFailed = 0;
        for (String agent : AGENTS) {
            ApiClient.Reply r = api.requestSandboxRetrying(agent, 3);
            if (!r.ok()) {
                fail("request after restart for " + agent + ": " + r + "\nserver log:\n" + server.logText());
            }
            for (Map.Entry<String, Map<String, String>> g : r.grants().entrySet()) {
                String service = g.getKey();
                Map<String, String> now = g.getValue();
                Map<String, String> before = old.get(agent).get(service);
                String pw = service.equals("postgres") ? "ROBOCO_TEST_DB_PASSWORD" : "ROBOCO_TEST_REDIS_PASSWORD";
                assertThat(now.get(pw))
                        .as("fresh credentials for " + agent + " " + service)
                        .isNotEqualTo(before.get(pw));
                assertThat(Probe.tryUse(service, now))
                        .as("fresh %s %s works", agent, service)
                        .isNull();
                fresh++;
                String failure = Probe.tryUse(service, before);
                assertThat(failure)
                        .as("old %s %s credentials must fail", agent, service)
                        .isNotNull();
                System.out.println("old " + agent + " " + service + " credentials fail loudly: " + failure);
                oldFailed++;
            }
        }
        Fixtures.figure("ServerKillIT fresh working credentials after restart: " + fresh + "/" + AGENTS.size() * 2
                + "; old credentials failing loudly: " + oldFailed + "/" + AGENTS.size() * 2);
        assertThat(server.logText()).contains("janitor removed orphan sandbox container");
    }
}
