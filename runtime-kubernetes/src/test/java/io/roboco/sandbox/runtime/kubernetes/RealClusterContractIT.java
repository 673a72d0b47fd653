package io.roboco.sandbox.runtime.kubernetes;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.testkit.ContainerRuntimeContract;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;

/**
 * The same {@link ContainerRuntimeContract} against a real cluster, when one is given: {@code ROBOCO_IT_KUBECONFIG}
 * names its kubeconfig, {@code ROBOCO_IT_K8S_NAMESPACE} (default {@code roboco-sandbox-it}) an existing namespace where
 * that identity holds the Role in deploy/kubernetes/rbac.yaml, {@code ROBOCO_IT_K8S_REDIS_IMAGE} (default
 * {@code redis:8-alpine}) and {@code ROBOCO_IT_K8S_SHELL_IMAGE} (default {@code busybox:1.36}) images its nodes can pull.
 * Without a kubeconfig it is skipped, saying so (no real cluster runs on this project's machines; the contract runs on
 * the test cluster in {@link KubernetesContainerRuntimeIT}).
 */
class RealClusterContractIT extends ContainerRuntimeContract {
    private static final String KUBECONFIG = System.getenv("ROBOCO_IT_KUBECONFIG");
    private static final String NAMESPACE = env("ROBOCO_IT_K8S_NAMESPACE", "roboco-sandbox-it");
    private static final String REDIS = env("ROBOCO_IT_K8S_REDIS_IMAGE", "redis:8-alpine");
    private static final String SHELL = env("ROBOCO_IT_K8S_SHELL_IMAGE", "busybox:1.36");

    private final ContainerRuntime runtime = given()
            ? KubernetesContainerRuntime.connect(KubernetesSettings.of(NAMESPACE)
                    .withKubeconfig(Path.of(KUBECONFIG))
                    .withTimeouts(Duration.ofMinutes(5), Duration.ofSeconds(60)))
            : new FakeContainerRuntime(); // never used: every test is skipped; the contract's clean-up finds nothing

    private static String env(String key, String fallback) {
        String value = System.getenv(key);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static boolean given() {
        return KUBECONFIG != null && !KUBECONFIG.isBlank() && Files.isRegularFile(Path.of(KUBECONFIG));
    }

    @BeforeAll
    void aRealClusterIsGiven() {
        if (!given()) {
            System.out.println("RealClusterContractIT skipped: ROBOCO_IT_KUBECONFIG names no kubeconfig file (no real"
                    + " cluster given); the contract ran on the test cluster in KubernetesContainerRuntimeIT");
        }
        assumeTrue(
                given(),
                "ROBOCO_IT_KUBECONFIG names no kubeconfig file: no real cluster given (the contract ran on the test"
                        + " cluster in KubernetesContainerRuntimeIT)");
    }

    @Override
    protected ContainerRuntime runtime() {
        return runtime;
    }

    @Override
    protected boolean managesNetworks() {
        return false;
    }

    @Override
    protected RunRequest longRunningRequest(String name, Map<String, String> labels) {
        return new RunRequest(
                name,
                new ContainerSpec(
                        REDIS, Map.of(), List.of("redis-server", "--port", "6379", "--save", ""), "/data", 6379),
                labels,
                Limits.sandboxDefaults(),
                NetworkMode.pods(),
                RunRequest.ENTRYPOINT_CAPABILITIES);
    }

    @Override
    protected RunRequest exitingRequest(String name, Map<String, String> labels, int exitCode) {
        return new RunRequest(
                name,
                new ContainerSpec(SHELL, Map.of(), List.of("sh", "-c", "exit " + exitCode), "/data", 0),
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
}
