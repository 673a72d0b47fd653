package io.roboco.sandbox.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.McpWire;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.Runtimes;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.kubernetes.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The product on the test cluster (fabric8's mock API server in CRUD mode + the Docker-backed kubelet, real databases
 * in the pods): the server with {@code ROBOCO_SANDBOX_RUNTIME=kubernetes}, configured as an operator would
 * ({@code KUBECONFIG}, the namespace), in this JVM. A project's postgres + redis + mongo sandbox through the HTTP verb
 * and through MCP; its credentials work with psql, redis-cli and pymongo at the pod addresses; release deletes the
 * pods; a killed pod container is detected and the set re-provisioned.
 */
class KubernetesSandboxesIT {
    static final String NAMESPACE = "roboco-sandboxes";
    private static final String SERVICES = "[\"postgres\",\"redis\",\"mongo\"]";
    private static final Pattern URL = Pattern.compile("(postgresql|redis|mongodb)://[^\"\\s\\\\]+");

    private static TestCluster cluster;
    private static KubernetesClient look;
    private static Path dir;
    private static RunningServer server;
    private static ApiClient api;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.start(NAMESPACE);
        look = cluster.client("roboco-test-look");
        dir = Files.createTempDirectory("roboco-kube-it");
        Map<String, String> env = kubernetesEnv(dir.resolve("state"), cluster, "1h", "2m", "60s");
        ServerConfig config = ServerConfig.fromEnv(env).withPort(0);
        ContainerRuntime runtime = Runtimes.connect(config);
        server = SandboxServer.start(
                config, runtime, EngineRegistry.defaults(), new InMemorySettingsStore(), Clock.systemUTC());
        api = new ApiClient(server.port());
    }

    /** The test servers' settings with the Kubernetes runtime on {@code cluster}. */
    static Map<String, String> kubernetesEnv(
            Path stateDir, TestCluster cluster, String tick, String grace, String readyTimeout) {
        Map<String, String> env = Fixtures.serverEnv(stateDir, tick, grace, readyTimeout);
        env.remove("ROBOCO_SANDBOX_NETWORK");
        env.put("ROBOCO_SANDBOX_RUNTIME", "kubernetes");
        env.put("ROBOCO_SANDBOX_K8S_NAMESPACE", cluster.namespace());
        env.put("ROBOCO_SANDBOX_K8S_START_TIMEOUT", "90s");
        env.put("KUBECONFIG", cluster.kubeconfig().toString());
        return env;
    }

    @AfterAll
    static void stop() {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            look.close();
            cluster.close();
        }
    }

    private static List<Pod> podsOf(String agent) {
        return look.pods()
                .inNamespace(NAMESPACE)
                .withLabel("roboco.sandbox.agent", agent)
                .list()
                .getItems();
    }

    private static Set<String> podAddresses(String agent) {
        return podsOf(agent).stream().map(p -> p.getStatus().getPodIP()).collect(Collectors.toSet());
    }

    private static void assertWorkingAtPodAddresses(String agent, Map<String, Map<String, String>> grants) {
        assertThat(grants).containsOnlyKeys("postgres", "redis", "mongo");
        Set<String> addresses = podAddresses(agent);
        assertThat(addresses).hasSize(3);
        grants.forEach((service, env) -> {
            String host = env.entrySet().stream()
                    .filter(e -> e.getKey().endsWith("_HOST"))
                    .findFirst()
                    .orElseThrow()
                    .getValue();
            assertThat(addresses)
                    .as("%s is reached at its pod's address", service)
                    .contains(host);
            assertThat(PodClients.use(cluster, service, env))
                    .as(agent + " " + service)
                    .isNull();
        });
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theHttpVerbGivesAWholeSetWhoseCredentialsWorkAtThePodAddressesAndReleaseDeletesThePods() throws Exception {
        String agent = "kube-http";
        api.working(agent, "kube-http", SERVICES);
        long t0 = System.nanoTime();
        ApiClient.Reply reply = api.requestSandboxRetrying(agent, 3);
        long coldMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(reply.ok()).as("%s", reply).isTrue();
        System.out.println("[figure] kubernetes: request_sandbox (HTTP) postgres+redis+mongo as pods, cold: " + coldMs
                + " ms (load " + load() + ")");
        assertWorkingAtPodAddresses(agent, reply.grants());
        assertThat(podsOf(agent))
                .allSatisfy(p -> assertThat(look.network()
                                .v1()
                                .networkPolicies()
                                .inNamespace(NAMESPACE)
                                .withName(p.getMetadata().getName())
                                .get())
                        .as("each pod's NetworkPolicy")
                        .isNotNull());

        ApiClient.Reply hit = api.requestSandbox(agent);
        assertThat(hit.grants()).isEqualTo(reply.grants());

        Set<String> pods =
                podsOf(agent).stream().map(p -> p.getMetadata().getName()).collect(Collectors.toSet());
        long r0 = System.nanoTime();
        ApiClient.Reply released = api.verb(agent, "release_sandbox", null);
        assertThat(released.ok()).as("%s", released).isTrue();
        long releaseMs = (System.nanoTime() - r0) / 1_000_000;
        assertThat(podsOf(agent)).as("release deleted the pods").isEmpty();
        assertThat(pods)
                .allSatisfy(p -> assertThat(look.network()
                                .v1()
                                .networkPolicies()
                                .inNamespace(NAMESPACE)
                                .withName(p)
                                .get())
                        .isNull());
        awaitNoContainers(pods);
        System.out.println("[figure] kubernetes: release_sandbox deleted " + pods.size() + " pods in " + releaseMs
                + " ms; their containers gone too");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void mcpRequestSandboxGivesAWholeSetWhoseCredentialsWorkAtThePodAddresses() throws Exception {
        String agent = "kube-mcp";
        api.working(agent, "kube-mcp", SERVICES);
        ApiClient.Reply minted = api.orchestrator("POST", "/api/agents/" + agent + "/token", null);
        McpWire mcp = new McpWire(server.port(), (String) minted.json().get("token"));
        mcp.initialize();
        long t0 = System.nanoTime();
        String answer = mcp.call("request_sandbox", Map.of());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        Map<String, String> urls = new TreeMap<>();
        Matcher m = URL.matcher(answer);
        while (m.find()) {
            urls.putIfAbsent(m.group(1), m.group());
        }
        assertThat(urls)
                .as("the MCP answer: %s", answer.replaceAll(":[^:@/]+@", ":***@"))
                .hasSize(3);
        System.out.println(
                "[figure] kubernetes: request_sandbox (MCP) postgres+redis+mongo as pods, cold: " + ms + " ms");
        Set<String> addresses = podAddresses(agent);
        urls.values().forEach(u -> assertThat(addresses).anyMatch(u::contains));
        assertThat(PodClients.psql(cluster, urls.get("postgresql"))).isNull();
        assertThat(PodClients.redisCli(cluster, urls.get("redis"))).isNull();
        assertThat(PodClients.pymongo(urls.get("mongodb"))).isNull();
        assertThat(mcp.call("release_sandbox", Map.of())).doesNotContain("\"isError\":true");
        assertThat(podsOf(agent)).isEmpty();
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aKilledPodContainerIsDetectedAndTheSetReprovisioned() throws Exception {
        String agent = "kube-kill";
        api.working(agent, "kube-kill", SERVICES);
        ApiClient.Reply first = api.requestSandboxRetrying(agent, 3);
        assertThat(first.ok()).as("%s", first).isTrue();
        Pod postgres = podsOf(agent).stream()
                .filter(p -> "postgres".equals(p.getMetadata().getLabels().get("roboco.sandbox.service")))
                .findFirst()
                .orElseThrow();
        String killed = postgres.getMetadata().getName();

        long t0 = System.nanoTime();
        cluster.kill(killed);
        ApiClient.Reply again = api.requestSandboxRetrying(agent, 5);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(again.ok()).as("%s", again).isTrue();
        assertThat(again.grants().get("postgres").get("ROBOCO_TEST_DB_PASSWORD"))
                .as("a new set, new credentials")
                .isNotEqualTo(first.grants().get("postgres").get("ROBOCO_TEST_DB_PASSWORD"));
        assertThat(podsOf(agent)).extracting(p -> p.getMetadata().getName()).doesNotContain(killed);
        assertWorkingAtPodAddresses(agent, again.grants());
        System.out.println("[figure] kubernetes: pod container killed -> detected and the set re-provisioned, working"
                + " credentials in " + ms + " ms");
        assertThat(api.verb(agent, "release_sandbox", null).ok()).isTrue();
    }

    @Test
    @SuppressWarnings("unchecked")
    void theDoctorChecksTheClusterItRunsOnNotADockerDaemon() {
        ApiClient.Reply doctor = api.admin("GET", "/api/doctor", null);
        assertThat(doctor.status()).as(doctor.body()).isEqualTo(200);
        Map<String, Map<String, Object>> checks = ((List<Map<String, Object>>)
                        doctor.json().get("checks"))
                .stream().collect(Collectors.toMap(c -> (String) c.get("name"), c -> c));
        assertThat(checks).doesNotContainKey("docker");
        assertThat(checks.get("kubernetes"))
                .as(doctor.body())
                .containsEntry("status", "ok")
                .extractingByKey("detail")
                .asString()
                .contains("Kubernetes", "reachable", "namespace " + NAMESPACE);
        assertThat(checks.get("image:postgres"))
                .as(doctor.body())
                .containsEntry("status", "ok")
                .extractingByKey("detail")
                .asString()
                .contains("pulled by the cluster's nodes");
    }

    private static void awaitNoContainers(Set<String> pods) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline
                && pods.stream().anyMatch(p -> cluster.runningPods().containsKey(p))) {
            Thread.sleep(100);
        }
        assertThat(cluster.runningPods().keySet()).doesNotContainAnyElementsOf(pods);
    }

    static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (Exception e) {
            return "?";
        }
    }
}
