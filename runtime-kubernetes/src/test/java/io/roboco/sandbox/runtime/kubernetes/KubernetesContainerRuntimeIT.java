package io.roboco.sandbox.runtime.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;
import io.roboco.sandbox.testkit.ContainerRuntimeContract;
import io.roboco.sandbox.testkit.kubernetes.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * testkit's {@link ContainerRuntimeContract} against the Kubernetes runtime on the test cluster (fabric8's mock API
 * server in CRUD mode and the Docker-backed kubelet), plus what only a pod can show: the locked-down pod spec as the
 * API server stored it, its NetworkPolicy, and its service answering at the pod's address from another container on
 * the pods' network. The network tests of the contract are Docker's (skipped here, saying so).
 */
class KubernetesContainerRuntimeIT extends ContainerRuntimeContract {
    static final String REDIS_IMAGE = "roboco-sandbox/redis:7";
    static final String BASE_IMAGE = "roboco-sandbox/base:bookworm";
    static final String NAMESPACE = "roboco-it";

    private final TestCluster cluster = TestCluster.start(NAMESPACE);
    private final KubernetesContainerRuntime kubernetes =
            KubernetesContainerRuntime.connect(KubernetesSettings.of(NAMESPACE)
                    .withKubeconfig(cluster.kubeconfig())
                    .withTimeouts(Duration.ofSeconds(90), Duration.ofSeconds(60)));
    private final KubernetesClient look = cluster.client("roboco-test-look");

    @AfterAll
    void stopTheCluster() {
        try {
            List<String> calls = cluster.callsBy(KubernetesContainerRuntime.USER_AGENT);
            Set<String> rules = new TreeSet<>();
            calls.stream().map(ApiCalls::rule).filter(Objects::nonNull).forEach(rules::add);
            System.out.println("[figure] kubernetes runtime API calls in the contract run: " + calls.size()
                    + ", needing " + rules);
            assertThat(KubernetesContainerRuntime.API_CALLS)
                    .as("every call the runtime made is one it declares (and deploy/kubernetes/rbac.yaml grants)")
                    .containsAll(rules);
        } finally {
            look.close();
            cluster.close();
        }
    }

    @Override
    protected ContainerRuntime runtime() {
        return kubernetes;
    }

    @Override
    protected boolean managesNetworks() {
        return false;
    }

    @Override
    protected RunRequest longRunningRequest(String name, Map<String, String> labels) {
        return redisRequest(name, labels);
    }

    static RunRequest redisRequest(String name, Map<String, String> labels) {
        ContainerSpec spec = new ContainerSpec(
                REDIS_IMAGE, Map.of(), List.of("redis-server", "--port", "6379", "--save", ""), "/data", 6379);
        return new RunRequest(
                name, spec, labels, Limits.sandboxDefaults(), NetworkMode.pods(), RunRequest.ENTRYPOINT_CAPABILITIES);
    }

    @Override
    protected RunRequest exitingRequest(String name, Map<String, String> labels, int exitCode) {
        return new RunRequest(
                name,
                new ContainerSpec(BASE_IMAGE, Map.of(), List.of("sh", "-c", "exit " + exitCode), "/data", 0),
                labels,
                Limits.sandboxDefaults(),
                NetworkMode.pods(),
                Set.of());
    }

    @Override
    protected String missingImage() {
        return "roboco-sandbox/does-not-exist:" + runId;
    }

    @Override
    protected String expectedLogFragment() {
        return "Ready to accept connections";
    }

    @Test
    void thePodIsLockedDownAsTheApiServerStoredIt() {
        Map<String, String> labels = labels();
        labels.put("roboco.sandbox.agent", "dev-1");
        labels.put("roboco.sandbox.project", "job:nightly@x");
        StartedContainer started = kubernetes.start(redisRequest(uniqueName("locked"), labels));

        Pod pod = look.pods().inNamespace(NAMESPACE).withName(started.id()).get();
        assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getSpec().getEnableServiceLinks()).isFalse();
        assertThat(pod.getSpec().getSecurityContext().getSeccompProfile().getType())
                .isEqualTo("RuntimeDefault");
        assertThat(pod.getSpec().getVolumes()).singleElement().satisfies(v -> {
            assertThat(v.getEmptyDir().getMedium()).isEqualTo("Memory");
            assertThat(v.getEmptyDir().getSizeLimit().getNumericalAmount().longValue())
                    .isEqualTo(Limits.sandboxDefaults().tmpfsBytes());
        });
        Container c = pod.getSpec().getContainers().get(0);
        assertThat(c.getResources().getRequests()).isEqualTo(c.getResources().getLimits());
        assertThat(c.getResources()
                        .getLimits()
                        .get("memory")
                        .getNumericalAmount()
                        .longValue())
                .isEqualTo(512L * 1024 * 1024);
        assertThat(c.getResources().getLimits().get("cpu").toString()).isEqualTo("1000m");
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(c.getSecurityContext().getPrivileged()).isFalse();
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(Set.copyOf(c.getSecurityContext().getCapabilities().getAdd()))
                .isEqualTo(RunRequest.ENTRYPOINT_CAPABILITIES);
        assertThat(c.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(c.getVolumeMounts())
                .singleElement()
                .satisfies(m -> assertThat(m.getMountPath()).isEqualTo("/data"));
        assertThat(pod.getMetadata().getLabels())
                .containsEntry("roboco.sandbox.agent", "dev-1")
                .containsEntry(PodLabels.POD, started.id())
                .containsEntry("roboco.sandbox.project", PodLabels.value("job:nightly@x"));
        assertThat(kubernetes.inspect(started.id()).orElseThrow().labels()).isEqualTo(labels);
        assertThat(kubernetes.list(Map.of("roboco.sandbox.project", "job:nightly@x")))
                .extracting(s -> s.id())
                .containsExactly(started.id());

        // the kubelet ran it as the spec says: the data dir on a capped tmpfs, the service at the pod's address
        assertThat(kubernetes
                        .exec(started.id(), List.of("sh", "-c", "grep ' /data ' /proc/mounts"), Map.of())
                        .stdout())
                .startsWith("tmpfs /data tmpfs")
                .contains("size=" + Limits.sandboxDefaults().tmpfsBytes() / 1024 + "k");
        assertThat(started.address()).isEqualTo(pod.getStatus().getPodIP()).isNotBlank();
        ExecResult ping = eventually(
                () -> cluster.runOnNetwork(
                        REDIS_IMAGE,
                        Map.of(),
                        List.of("redis-cli", "-h", started.address(), "-p", "6379", "PING"),
                        Duration.ofSeconds(30)),
                r -> r.stdout().contains("PONG"));
        assertThat(ping.stdout()).contains("PONG");
        kubernetes.remove(started.id());
        assertThat(look.pods().inNamespace(NAMESPACE).withName(started.id()).get())
                .isNull();
    }

    @Test
    void eachPodHasANetworkPolicyAdmittingOnlyItsAgentAndTheServer() {
        Map<String, String> labels = labels();
        labels.put("roboco.sandbox.agent", "dev-2");
        StartedContainer started = kubernetes.start(redisRequest(uniqueName("policy"), labels));

        NetworkPolicy policy = look.network()
                .v1()
                .networkPolicies()
                .inNamespace(NAMESPACE)
                .withName(started.id())
                .get();
        assertThat(policy.getSpec().getPodSelector().getMatchLabels()).isEqualTo(Map.of(PodLabels.POD, started.id()));
        assertThat(policy.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
        assertThat(policy.getSpec().getEgress()).isNullOrEmpty();
        assertThat(policy.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(rule.getPorts())
                    .singleElement()
                    .satisfies(p -> assertThat(p.getPort().getIntVal()).isEqualTo(6379));
            assertThat(rule.getFrom()).hasSize(2);
            assertThat(rule.getFrom().get(0).getPodSelector().getMatchLabels())
                    .isEqualTo(Map.of("app.kubernetes.io/name", "roboco-sandbox"));
            assertThat(rule.getFrom().get(1).getPodSelector().getMatchLabels())
                    .isEqualTo(Map.of(SandboxNetworkPolicy.AGENT_LABEL, "dev-2"));
            assertThat(rule.getFrom().get(1).getNamespaceSelector().getMatchLabels())
                    .isEqualTo(Map.of("kubernetes.io/metadata.name", NAMESPACE));
        });
        kubernetes.admit(started.id(), "dev-3");
        assertThat(look.network()
                        .v1()
                        .networkPolicies()
                        .inNamespace(NAMESPACE)
                        .withName(started.id())
                        .get()
                        .getSpec()
                        .getIngress()
                        .get(0)
                        .getFrom())
                .hasSize(3);
        kubernetes.remove(started.id());
        assertThat(look.network()
                        .v1()
                        .networkPolicies()
                        .inNamespace(NAMESPACE)
                        .withName(started.id())
                        .get())
                .isNull();
    }
}
