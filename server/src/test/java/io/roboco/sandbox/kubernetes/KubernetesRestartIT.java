package io.roboco.sandbox.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.roboco.sandbox.it.ChildServer;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.kubernetes.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The standalone server (a child JVM, {@code target/roboco-sandbox.jar}) with {@code ROBOCO_SANDBOX_RUNTIME=kubernetes}
 * on the test cluster, through restarts: a graceful restart (SIGTERM) re-adopts a live sandbox (the same pods, the same
 * working passwords); after a {@code kill -9} and a start with re-adoption off, the janitor finds the orphan pods by
 * their labels and deletes them.
 */
class KubernetesRestartIT {
    private static final String AGENT = "kube-keep";
    private static TestCluster cluster;
    private static KubernetesClient look;
    private static Path dir;
    private static ChildServer server;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.start("roboco-restart");
        look = cluster.client("roboco-test-look");
        dir = Files.createTempDirectory("roboco-kube-restart-it");
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            look.close();
            cluster.close();
        }
    }

    private static Set<String> pods() {
        return look
                .pods()
                .inNamespace(cluster.namespace())
                .withLabel("roboco.sandbox.agent", AGENT)
                .list()
                .getItems()
                .stream()
                .map(p -> p.getMetadata().getName())
                .collect(Collectors.toSet());
    }

    @Test
    @Timeout(value = 480, unit = TimeUnit.SECONDS)
    void aGracefulRestartKeepsTheSandboxAndAfterKill9TheJanitorDeletesTheOrphanPodsByLabel() throws Exception {
        Map<String, String> env =
                KubernetesSandboxesIT.kubernetesEnv(dir.resolve("state"), cluster, "1s", "40s", "30s");
        int port = ChildServer.freePort();
        Path log = dir.resolve("server.log");
        server = ChildServer.start(env, port, log);
        server.api.working(AGENT, "kube-keep", "[\"postgres\",\"redis\"]");
        ApiClient.Reply first = server.api.requestSandboxRetrying(AGENT, 3);
        assertThat(first.ok()).as("%s", first).isTrue();
        Set<String> pods = pods();
        assertThat(pods).hasSize(2);

        assertThat(server.sigterm(60))
                .as("graceful stop; log: %s", server.logText())
                .isTrue();
        assertThat(pods()).as("a graceful stop keeps the sandbox's pods").isEqualTo(pods);
        long t0 = System.nanoTime();
        server = ChildServer.start(env, port, log);
        ApiClient.Reply kept = server.api.requestSandboxRetrying(AGENT, 3);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(kept.ok()).as("%s", kept).isTrue();
        assertThat(kept.grants()).as("the same credentials after the restart").isEqualTo(first.grants());
        assertThat(pods()).as("the same pods: nothing re-provisioned").isEqualTo(pods);
        kept.grants()
                .forEach((service, creds) -> assertThat(PodClients.use(cluster, service, creds))
                        .as(service)
                        .isNull());
        System.out.println("[figure] kubernetes: graceful restart re-adopted " + pods.size()
                + " pods; start + first request_sandbox (same passwords, working) " + ms + " ms (load "
                + KubernetesSandboxesIT.load() + ")");

        server.kill9();
        server = null;
        assertThat(pods()).as("pods outlive a kill -9: orphans now").isEqualTo(pods);
        Map<String, String> noReadoption = new HashMap<>(env);
        noReadoption.put("ROBOCO_SANDBOX_READOPT", "false");
        long k0 = System.nanoTime();
        server = ChildServer.start(noReadoption, port, log);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
        while (!pods().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(250);
        }
        assertThat(pods())
                .as("the janitor deleted the orphan pods; log: %s", server.logText())
                .isEmpty();
        long sweptMs = (System.nanoTime() - k0) / 1_000_000;
        long deadlineContainers = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (pods.stream().anyMatch(p -> cluster.runningPods().containsKey(p))
                && System.nanoTime() < deadlineContainers) {
            Thread.sleep(100);
        }
        assertThat(cluster.runningPods().keySet()).doesNotContainAnyElementsOf(pods);
        System.out.println("[figure] kubernetes: after kill -9, the restarted server's janitor deleted " + pods.size()
                + " orphan pods by label " + sweptMs + " ms after its start (grace 40s from their creation)");
    }
}
