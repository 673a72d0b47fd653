package io.roboco.sandbox.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.ChildServer;
import io.roboco.sandbox.it.ChildServers;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.OperatorCli;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ownership without labels: a sandbox claimed from the warm pool keeps the pool's Docker labels (agent {@code -}), yet
 * the server lists it under its agent (GET /api/sandboxes, each container {@code from_pool}) — before and after a
 * {@code kill -9} and restart, which re-adopts it for that agent with the same credentials — and a release removes its
 * containers.
 */
class PoolOwnershipIT {
    private static final String AGENT = "pooled-1";

    @TempDir
    Path dir;

    @RegisterExtension
    final ChildServers servers = new ChildServers();

    private ChildServer server;
    private String instance;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aPoolClaimedSandboxIsListedUnderItsAgentBeforeAndAfterARestartAndReleasedById() throws Exception {
        Map<String, String> env = Fixtures.serverEnv(dir.resolve("state"), "1s", "40s", "30s");
        env.put("ROBOCO_SANDBOX_POOL_POSTGRES", "1");
        env.put("ROBOCO_SANDBOX_POOL_REDIS", "1");
        int port = ChildServer.freePort();
        Path log = dir.resolve("server.log");
        server = servers.start(env, port, log);
        instance = Fixtures.instanceIdIn(dir.resolve("state"));
        assertThat(server.awaitLog(" filled: ", 2, 120)).as("both pools filled").isTrue();
        server.api.working(AGENT, "pooled", "[\"postgres\",\"redis\"]");
        ApiClient.Reply before = server.api.requestSandbox(AGENT);
        assertThat(before.ok()).as("%s", before).isTrue();

        Map<String, Object> listed = onlySandboxOf(server.api);
        List<String> containers = containerIds(listed);
        assertThat(fromPool(listed))
                .as("both containers were claimed from the pool")
                .containsOnly(true)
                .hasSize(2);
        assertThat(labelledFor(AGENT))
                .as("Docker's labels do not say whose they are")
                .isEmpty();
        assertThat(cliList(port))
                .as("the CLI's list")
                .contains((String) listed.get("id"))
                .contains(AGENT);
        assertThat(containers)
                .allSatisfy(id -> assertThat(LocalImages.docker(
                                        "inspect", "-f", "{{index .Config.Labels \"roboco.sandbox.pool\"}}", id)
                                .strip())
                        .isEqualTo("1"));

        server.kill9();
        server = servers.start(env, port, log);
        Map<String, Object> after = onlySandboxOf(server.api);
        assertThat(after.get("id")).as("the same record, still its agent's").isEqualTo(listed.get("id"));
        assertThat(after.get("state")).isEqualTo("live");
        assertThat(fromPool(after)).containsOnly(true);
        assertThat(cliList(port))
                .as("the CLI's list after the restart")
                .contains((String) listed.get("id"))
                .contains(AGENT);
        ApiClient.Reply again = server.api.requestSandbox(AGENT);
        assertThat(again.grants())
                .as("re-adopted for its agent: the same credentials")
                .isEqualTo(before.grants());

        ApiClient.Reply released = server.api.verb(AGENT, "release_sandbox", "{}");
        assertThat(released.ok()).as("%s", released).isTrue();
        List<String> left = Fixtures.containersOf(instance).stream()
                .filter(containers::contains)
                .toList();
        Fixtures.figure("PoolOwnershipIT a pool-claimed sandbox: listed under " + AGENT + " before and after kill -9 ("
                + containers.size()
                + " containers from_pool, 0 labelled for the agent), same credentials after the restart, " + left.size()
                + " of its containers left after release");
        assertThat(left).as("release removes the claimed containers by id").isEmpty();
    }

    /** {@code roboco-sandbox list --owner <agent>} against the server; its table. */
    private static String cliList(int port) throws Exception {
        OperatorCli.Run run = OperatorCli.run(OperatorCli.against(port), "list", "--owner", AGENT);
        assertThat(run.exit()).as(run.out()).isZero();
        return run.out();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> onlySandboxOf(ApiClient api) {
        ApiClient.Reply r = api.admin("GET", "/api/sandboxes?owner=" + AGENT, null);
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        List<Map<String, Object>> sandboxes =
                (List<Map<String, Object>>) r.json().get("sandboxes");
        assertThat(sandboxes).hasSize(1);
        assertThat(sandboxes.get(0)).containsEntry("owner", AGENT);
        return sandboxes.get(0);
    }

    @SuppressWarnings("unchecked")
    private static List<String> containerIds(Map<String, Object> sandbox) {
        return ((List<Map<String, Object>>) sandbox.get("containers"))
                .stream().map(c -> (String) c.get("container_id")).toList();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> fromPool(Map<String, Object> sandbox) {
        return ((List<Map<String, Object>>) sandbox.get("containers"))
                .stream().map(c -> c.get("from_pool")).toList();
    }

    private List<String> labelledFor(String agent) {
        String out = LocalImages.docker(
                        "ps",
                        "-aq",
                        "--filter",
                        "label=roboco.sandbox.instance=" + instance,
                        "--filter",
                        "label=roboco.sandbox.agent=" + agent)
                .strip();
        return out.isEmpty() ? List.of() : List.of(out.split("\\s+"));
    }
}
