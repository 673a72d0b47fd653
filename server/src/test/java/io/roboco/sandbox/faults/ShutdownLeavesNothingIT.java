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
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SIGTERM to the standalone server (a child JVM, warm pool on, re-adoption off) 0-500 ms after an agent's
 * sandbox was claimed from the pool, so the pool's refills are still starting: the shutdown leaves no sandbox
 * container of the instance behind (the agent's, the pool's idle ones, the refills in flight), and the release
 * of the agent's sandbox is in the audit trail. Twenty rounds; the delays come from a seeded random source
 * ({@code -Droboco.seed=N} repeats a run; the seed is printed).
 */
class ShutdownLeavesNothingIT {
    private static final int ROUNDS = Integer.getInteger("roboco.shutdown.rounds", 20);
    private static final String FILLED = " filled: ";
    private static Path dir;
    private static String instance;

    @BeforeAll
    static void stateDir() throws Exception {
        dir = Files.createTempDirectory("roboco-shutdown-it");
    }

    @AfterAll
    static void cleanUp() {
        int left = Fixtures.removeAllOf(instance);
        System.out.println("ShutdownLeavesNothingIT cleanup removed " + left + " container(s)");
    }

    @Test
    @Timeout(value = 1200, unit = TimeUnit.SECONDS)
    void sigtermSoonAfterAPoolClaimLeavesNoContainerAndAuditsTheRelease() throws Exception {
        long seed = Long.getLong("roboco.seed", System.nanoTime());
        System.out.println("ShutdownLeavesNothingIT seed " + seed + " (repeat with -Droboco.seed=" + seed + ")");
        Random random = new Random(seed);
        Path state = dir.resolve("state");
        Map<String, String> env = Fixtures.serverEnv(state, "1s", "40s", "30s");
        env.put("ROBOCO_SANDBOX_POOL_POSTGRES", "1");
        env.put("ROBOCO_SANDBOX_POOL_REDIS", "1");
        env.put("ROBOCO_SANDBOX_READOPT", "false");
        int port = ChildServer.freePort();

        List<String> leftBehind = new ArrayList<>();
        List<String> unaudited = new ArrayList<>();
        List<Integer> delays = new ArrayList<>();
        int hookTimeouts = 0;
        for (int round = 0; round < ROUNDS; round++) {
            String agent = "stop-" + round;
            Path log = dir.resolve("server-" + round + ".log");
            ChildServer server = ChildServer.start(env, port, log);
            instance = Fixtures.instanceIdIn(state);
            try {
                assertThat(server.awaitLog(FILLED, 2, 120))
                        .as("both pools filled; log:\n%s", server.logText())
                        .isTrue();
                ApiClient api = server.api;
                api.working(agent, "stopping", "[\"postgres\",\"redis\"]");
                ApiClient.Reply r = api.requestSandbox(agent);
                assertThat(r.ok()).as("round %d: %s", round, r).isTrue();
                int delay = random.nextInt(501);
                delays.add(delay);
                Thread.sleep(delay);
            } finally {
                if (!server.sigterm(60)) {
                    hookTimeouts++;
                    server.kill9();
                }
            }
            List<String> left = Fixtures.containersOf(instance);
            if (!left.isEmpty()) {
                leftBehind.add("round " + round + " (SIGTERM " + delays.get(delays.size() - 1)
                        + " ms after the claim): " + left.size() + " container(s)");
                Fixtures.removeAllOf(instance);
            }
            try (JdbcSettingsStore store = JdbcSettingsStore.embedded(state)) {
                List<AuditRecord> records = store.recent(agent, null, 20);
                boolean released = records.stream()
                        .anyMatch(a -> "server_shutdown".equals(a.verb()) && "released".equals(a.decision()));
                if (!released) {
                    unaudited.add("round " + round + ": "
                            + records.stream()
                                    .map(a -> a.verb() + "/" + a.decision())
                                    .toList());
                }
            }
        }
        Fixtures.figure(
                "ShutdownLeavesNothingIT containers left after SIGTERM: " + leftBehind.size() + " round(s) of " + ROUNDS
                        + " " + leftBehind + "; releases missing from the audit: " + unaudited.size() + " " + unaudited
                        + "; shutdown hooks over 60 s: " + hookTimeouts + "; seed " + seed + ", delays (ms) " + delays);
        assertThat(leftBehind).isEmpty();
        assertThat(unaudited).isEmpty();
        assertThat(hookTimeouts).isZero();
    }
}
