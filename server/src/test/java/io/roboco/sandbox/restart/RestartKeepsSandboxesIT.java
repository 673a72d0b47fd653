package io.roboco.sandbox.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.ChildServer;
import io.roboco.sandbox.it.ChildServers;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.Probe;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Restarts lose nothing: six agents hold sandboxes (postgres, redis and mongo among them) on the standalone server (a
 * child JVM); it is killed with {@code kill -9}, or stopped gracefully (SIGTERM), and started again on the same state
 * directory. Every agent's next request_sandbox answers the same passwords, which still work with the real clients;
 * the restart creates no container (the daemon's event log says so); the first request after the restart is a cache
 * hit (p50 reported; at most 50 ms, or five times the p50 of cache hits on the server before the restart, measured in
 * the same run, when the machine is slower than that). With {@code ROBOCO_SANDBOX_READOPT=false} the seed's behaviour holds instead: fresh
 * credentials after the restart, and the old ones fail.
 */
class RestartKeepsSandboxesIT {
    @TempDir
    Path dir;

    @RegisterExtension
    final ChildServers servers = new ChildServers();

    private ChildServer server;
    private String instance;

    private Map<String, String> env() {
        return Fixtures.serverEnv(dir.resolve("state"), "1s", "40s", "30s");
    }

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void afterKill9EveryAgentGetsItsSameWorkingPasswordsAndTheRestartCreatesNoContainer() throws Exception {
        restartKeepsEverything(true);
    }

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void afterAGracefulRestartEveryAgentGetsItsSameWorkingPasswordsAndTheRestartCreatesNoContainer() throws Exception {
        restartKeepsEverything(false);
    }

    private void restartKeepsEverything(boolean kill9) throws Exception {
        String how = kill9 ? "kill -9" : "graceful restart";
        int port = ChildServer.freePort();
        Path log = dir.resolve("server.log");
        server = servers.start(env(), port, log);
        instance = Fixtures.instanceIdIn(dir.resolve("state"));
        Agents.provisionAll(server.api);
        // The baseline, in the same run: each agent's cache hit on the running server. Its grant is what the
        // restart must keep (on a loaded machine a liveness check may evict and re-provision a set here).
        Map<String, Map<String, Map<String, String>>> before = new LinkedHashMap<>();
        List<Double> warmHitMs = new ArrayList<>();
        for (String agent : Agents.PROJECTS.keySet()) {
            long t0 = System.nanoTime();
            ApiClient.Reply hit = server.api.requestSandbox(agent);
            warmHitMs.add((System.nanoTime() - t0) / 1e6);
            assertThat(hit.ok()).as("%s before the restart: %s", agent, hit).isTrue();
            before.put(agent, hit.grants());
        }
        double budget = Math.max(50.0, 5 * Agents.p50(warmHitMs));
        List<String> containers = Fixtures.containersOf(instance);
        int services = before.values().stream().mapToInt(Map::size).sum();
        assertThat(containers).hasSize(services);

        if (kill9) {
            server.kill9();
        } else {
            assertThat(server.sigterm(60)).as("graceful shutdown within 60 s").isTrue();
        }
        server = null;
        assertThat(Fixtures.runningOf(instance))
                .as("the sandboxes outlive the server (%s)", how)
                .hasSize(services);
        Instant restarted = Instant.now();
        server = servers.start(env(), port, log);

        List<Double> firstRequestMs = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        List<String> broken = new ArrayList<>();
        for (Map.Entry<String, Map<String, Map<String, String>>> agent : before.entrySet()) {
            long t0 = System.nanoTime();
            ApiClient.Reply r = server.api.requestSandbox(agent.getKey());
            firstRequestMs.add((System.nanoTime() - t0) / 1e6);
            assertThat(r.ok())
                    .as("%s after the %s: %s\nserver log:\n%s", agent.getKey(), how, r, server.logText())
                    .isTrue();
            assertThat(server.api
                            .admin("GET", "/api/audit?agent=" + agent.getKey() + "&limit=1", null)
                            .body())
                    .as("a cache hit")
                    .contains("cache hit");
            agent.getValue().forEach((service, env) -> {
                String was = Agents.password(service, env);
                String now = Agents.password(service, r.grants().get(service));
                if (!was.equals(now)) {
                    changed.add(agent.getKey() + " " + service);
                }
            });
            broken.addAll(Agents.failures(r.grants()).stream()
                    .map(f -> agent.getKey() + " " + f)
                    .toList());
        }
        List<String> created = Fixtures.createdSince(instance, restarted);
        double p50 = Agents.p50(firstRequestMs);
        Fixtures.figure("RestartKeepsSandboxesIT " + how + " with " + before.size() + " agents (" + services
                + " containers: postgres, redis,"
                + " mongo): same passwords " + (services - changed.size()) + "/" + services
                + ", working with the real clients "
                + (services - broken.size()) + "/" + services + ", containers created by the restart " + created.size()
                + ", first request after the restart p50 " + String.format("%.1f", p50) + " ms (each: "
                + firstRequestMs.stream().map(ms -> String.format("%.1f", ms)).toList() + "), budget "
                + String.format("%.1f", budget) + " ms (cache hits before the restart p50 "
                + String.format("%.1f", Agents.p50(warmHitMs)) + " ms)");
        assertThat(changed).isEmpty();
        assertThat(broken).isEmpty();
        assertThat(created).isEmpty();
        assertThat(Fixtures.containersOf(instance)).containsExactlyInAnyOrderElementsOf(containers);
        assertThat(p50).as("first request after the restart, p50 ms").isLessThanOrEqualTo(budget);
        assertThat(server.logText())
                .contains("re-adoption (instance " + instance + "): " + before.size() + " sandbox(es) re-adopted");
    }

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void withReadoptionOffARestartGivesFreshCredentialsAndTheOldOnesFail() throws Exception {
        Map<String, String> env = env();
        env.put("ROBOCO_SANDBOX_READOPT", "false");
        int port = ChildServer.freePort();
        Path log = dir.resolve("server.log");
        server = servers.start(env, port, log);
        instance = Fixtures.instanceIdIn(dir.resolve("state"));
        Map<String, Map<String, Map<String, String>>> before = Agents.provisionAll(server.api);
        assertThat(server.sigterm(60)).isTrue();
        server = null;
        assertThat(Fixtures.containersOf(instance))
                .as("a shutdown with re-adoption off releases everything")
                .isEmpty();
        server = servers.start(env, port, log);

        int fresh = 0;
        int oldFailing = 0;
        int total = 0;
        for (Map.Entry<String, Map<String, Map<String, String>>> agent : before.entrySet()) {
            ApiClient.Reply r = server.api.requestSandboxRetrying(agent.getKey(), 3);
            assertThat(r.ok()).as("%s: %s", agent.getKey(), r).isTrue();
            for (Map.Entry<String, Map<String, String>> g : agent.getValue().entrySet()) {
                total++;
                Map<String, String> now = r.grants().get(g.getKey());
                if (!Agents.password(g.getKey(), now).equals(Agents.password(g.getKey(), g.getValue()))
                        && Probe.tryUse(g.getKey(), now) == null) {
                    fresh++;
                }
                if (Probe.tryUse(g.getKey(), g.getValue()) != null) {
                    oldFailing++;
                }
            }
        }
        Fixtures.figure("RestartKeepsSandboxesIT re-adoption off: fresh working credentials " + fresh + "/" + total
                + ", old credentials failing " + oldFailing + "/" + total);
        assertThat(fresh).isEqualTo(total);
        assertThat(oldFailing).isEqualTo(total);
        assertThat(server.logText()).contains("re-adoption is off (ROBOCO_SANDBOX_READOPT=false)");
    }
}
