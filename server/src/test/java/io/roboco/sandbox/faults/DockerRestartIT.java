package io.roboco.sandbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.it.Probe;
import io.roboco.sandbox.janitor.SweepReport;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Docker daemon restarts under live sandboxes (SIGTERM to dockerd, which stops every container;
 * then dockerd started again): while it is down, request_sandbox answers a retryable invalid_state;
 * once it is back, each agent's next request answers fresh, working credentials, never dead ones, and
 * the dead sets' records are closed; the janitor reports failed sweeps while the daemon is away and
 * sweeps normally afterwards. A second server, stopped gracefully before the daemon restart (its
 * sandbox kept for re-adoption), starts again afterwards: re-adoption finds the containers stopped,
 * closes the record, and the agent gets a fresh working set.
 *
 * <p>This stops the machine's Docker daemon, so it disrupts anything else using Docker: it runs only
 * when {@code ROBOCO_IT_DOCKER_RESTART=1} (the test script runs it alone, last). Whatever happens,
 * dockerd is running again when it ends.
 */
@EnabledIfEnvironmentVariable(
        named = "ROBOCO_IT_DOCKER_RESTART",
        matches = "1",
        disabledReason = "restarts the machine's dockerd; set ROBOCO_IT_DOCKER_RESTART=1 and run it alone")
class DockerRestartIT {
    private static final List<String> AGENTS = List.of("dockerd-a", "dockerd-b");

    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedByTheTest(
            stateDir -> new InProcessServer(stateDir, "2s", "40s", "30s", null));

    @AfterAll
    static void stop() throws Exception {
        try {
            DockerDaemon.start(90);
        } finally {
            // the extension then closes the server and removes its containers
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void afterADaemonRestartAgentsGetWorkingCredentialsNeverDeadOnes() throws Exception {
        InProcessServer server = SERVER.start();
        ApiClient api = server.api;
        Map<String, Map<String, Map<String, String>>> old = new LinkedHashMap<>();
        List<String> oldIds = new ArrayList<>();
        for (String agent : AGENTS) {
            api.working(agent, "dockerd", "[\"postgres\",\"redis\"]");
            ApiClient.Reply r = api.requestSandboxRetrying(agent, 3);
            assertThat(r.ok()).as("%s", r).isTrue();
            old.put(agent, r.grants());
            oldIds.add(sandboxId(r));
        }
        // The second server: one agent's set, kept by a graceful stop for the next start to re-adopt.
        Path keptState = Files.createTempDirectory("roboco-dockerd-kept");
        ServerConfig keptConfig = ServerConfig.fromEnv(Fixtures.serverEnv(keptState, "2s", "40s", "30s"))
                .withPort(0);
        RunningServer kept = startKept(keptConfig, keptState);
        String keptInstance = kept.instanceId();
        Map<String, Map<String, String>> keptBefore;
        String keptId;
        try {
            ApiClient keptApi = new ApiClient(kept.port());
            keptApi.working(KEPT_AGENT, "dockerd", "[\"postgres\",\"redis\"]");
            ApiClient.Reply r = keptApi.requestSandboxRetrying(KEPT_AGENT, 3);
            assertThat(r.ok()).as("%s", r).isTrue();
            keptBefore = r.grants();
            keptId = sandboxId(r);
        } finally {
            kept.close();
        }
        assertThat(Fixtures.runningOf(keptInstance)).as("kept for re-adoption").hasSize(2);

        int downAnswers = 0;
        List<String> wrongWhileDown = new ArrayList<>();
        long stoppedPid;
        try {
            stoppedPid = DockerDaemon.stop(90);
            for (String agent : AGENTS) {
                ApiClient.Reply r = api.requestSandbox(agent);
                downAnswers++;
                Map<String, Object> json = r.json();
                if (!"invalid_state".equals(json.get("error")) || !Boolean.TRUE.equals(json.get("retryable"))) {
                    wrongWhileDown.add(agent + ": " + r);
                }
            }
            // Two janitor sweeps against the missing daemon, run as its ticks run them: each must report the failure.
            for (int i = 0; i < 2; i++) {
                SweepReport sweep = server.sweepNow();
                if (sweep.ok()) {
                    wrongWhileDown.add("a janitor sweep while the daemon was down reported ok: " + sweep.summary());
                }
            }
        } finally {
            DockerDaemon.start(90);
        }
        System.out.println("dockerd " + stoppedPid + " stopped and started again");

        int working = 0;
        List<String> dead = new ArrayList<>();
        int oldFailing = 0;
        for (String agent : AGENTS) {
            ApiClient.Reply r = api.requestSandboxRetrying(agent, 5);
            assertThat(r.ok()).as("after the restart, %s: %s", agent, r).isTrue();
            for (Map.Entry<String, Map<String, String>> g : r.grants().entrySet()) {
                String failure = Probe.tryUse(g.getKey(), g.getValue());
                if (failure == null) {
                    working++;
                } else {
                    dead.add(agent + " " + g.getKey() + ": " + failure);
                }
                if (Probe.tryUse(g.getKey(), old.get(agent).get(g.getKey())) != null) {
                    oldFailing++;
                }
            }
        }
        String audit = api.admin("GET", "/api/audit?limit=500", null).body();
        long failedSweeps = audit.split("sweep failed", -1).length - 1;
        Fixtures.figure(
                "DockerRestartIT dead endpoints handed out after the daemon restart: " + dead.size() + " (working "
                        + working + "/" + AGENTS.size() * 2 + "; answers while down: " + downAnswers
                        + ", not retryable invalid_state: "
                        + wrongWhileDown.size() + "; old credentials failing: " + oldFailing + "/" + AGENTS.size() * 2
                        + "; janitor sweeps reported failed while down: " + failedSweeps + ")");
        assertThat(wrongWhileDown).isEmpty();
        assertThat(dead).isEmpty();
        assertThat(failedSweeps).isPositive();
        assertThat(oldFailing).isEqualTo(AGENTS.size() * 2);
        String deleted = api.admin("GET", "/api/sandboxes?state=deleted", null).body();
        assertThat(oldIds)
                .as("the dead sets' records are closed")
                .allSatisfy(id -> assertThat(deleted).contains(id));

        // The second server starts after the daemon restart: its kept sandbox's containers are stopped, so re-adoption
        // closes the record and removes them; the agent's next call provisions a fresh, working set.
        RunningServer again = startKept(keptConfig, keptState);
        try {
            ApiClient keptApi = new ApiClient(again.port());
            ApiClient.Reply fresh = keptApi.requestSandboxRetrying(KEPT_AGENT, 5);
            assertThat(fresh.ok()).as("%s", fresh).isTrue();
            assertThat(sandboxId(fresh)).isNotEqualTo(keptId);
            List<String> failures = new ArrayList<>();
            fresh.grants().forEach((service, env) -> {
                if (Probe.tryUse(service, env) != null) {
                    failures.add(service);
                }
                if (env.equals(keptBefore.get(service))) {
                    failures.add(service + " (the dead credentials again)");
                }
            });
            String closed =
                    keptApi.admin("GET", "/api/sandboxes?state=deleted", null).body();
            Fixtures.figure("DockerRestartIT re-adoption after the daemon restart: record " + keptId + " closed "
                    + closed.contains(keptId) + ", fresh working set " + failures.isEmpty());
            assertThat(closed).contains(keptId).contains("closed at restart");
            assertThat(failures).isEmpty();
        } finally {
            again.close();
            System.out.println("DockerRestartIT cleanup removed " + Fixtures.removeAllOf(keptInstance)
                    + " container(s) of the second server");
        }
    }

    private static final String KEPT_AGENT = "dockerd-kept";

    /** The second server: its own state directory and embedded store (so its records outlive it), real Docker. */
    private static RunningServer startKept(ServerConfig config, Path state) {
        return SandboxServer.start(
                config,
                LocalImages.requireDockerAndImages(),
                EngineRegistry.defaults(),
                JdbcSettingsStore.embedded(state),
                Clock.systemUTC());
    }

    @SuppressWarnings("unchecked")
    private static String sandboxId(ApiClient.Reply r) {
        return (String) ((Map<String, Object>) r.json().get("evidence")).get("sandbox_id");
    }
}
