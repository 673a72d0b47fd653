package io.roboco.sandbox.runtime.kubernetes;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.RuntimeInfo;
import io.roboco.sandbox.runtime.StartedContainer;
import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ContainerRuntime} on a Kubernetes cluster through the fabric8 client: one pod per sandbox service in one
 * namespace ({@link SandboxPods}), each with a NetworkPolicy of its own ({@link SandboxNetworkPolicy}). A container's
 * id and name are its pod's name. {@link #start} returns once the pod runs and has its address, which is where the
 * service is reached ({@link StartedContainer#address()}: the pod IP, not a Service: see docs/kubernetes.md).
 *
 * <p>Every API call it makes is one the Role in deploy/kubernetes/rbac.yaml grants ({@link #API_CALLS}; the manifests'
 * test checks both lists and the test cluster's record of what was called).
 */
public final class KubernetesContainerRuntime implements ContainerRuntime {
    /** The User-Agent of this runtime's requests (the test cluster tells them from its kubelet's by it). */
    public static final String USER_AGENT = "roboco-sandbox-runtime";

    /**
     * Every {@code group/resource:verb} this runtime calls in its namespace: what the Role in deploy/kubernetes/rbac.yaml
     * grants, no more (DeployManifestsTest; the test cluster's record of the calls made is checked against it).
     */
    public static final List<String> API_CALLS = List.of(
            "/pods:create",
            "/pods:get",
            "/pods:list",
            "/pods:watch",
            "/pods:delete",
            "/pods/exec:create",
            "/pods/exec:get",
            "/pods/log:get",
            "networking.k8s.io/networkpolicies:create",
            "networking.k8s.io/networkpolicies:get",
            "networking.k8s.io/networkpolicies:patch",
            "networking.k8s.io/networkpolicies:delete",
            "/resourcequotas:list");

    /** The one cluster-scoped call, for capacity when the namespace has no ResourceQuota; optional (the ClusterRole). */
    public static final List<String> CLUSTER_API_CALLS = List.of("/nodes:list");

    private static final Logger log = LoggerFactory.getLogger(KubernetesContainerRuntime.class);

    private final KubernetesClient client;
    private final KubernetesSettings settings;
    private final PodExec exec;

    private KubernetesContainerRuntime(KubernetesClient client, KubernetesSettings settings) {
        this.client = client;
        this.settings = settings;
        this.exec = new PodExec(client, settings.namespace(), settings.execTimeout());
    }

    /** Connects as {@code settings} say (a kubeconfig file, or the client's own discovery); sends nothing yet. */
    public static KubernetesContainerRuntime connect(KubernetesSettings settings) {
        Objects.requireNonNull(settings, "settings");
        Config base;
        try {
            if (settings.kubeconfig() != null) {
                File file = settings.kubeconfig().toFile();
                base = Config.fromKubeconfig(null, Files.readString(file.toPath()), file.getPath());
            } else {
                base = Config.autoConfigure(null);
            }
        } catch (Exception e) {
            throw new ContainerRuntimeException(
                    "no usable Kubernetes configuration ("
                            + (settings.kubeconfig() == null
                                    ? "KUBECONFIG, ~/.kube/config or in-cluster"
                                    : settings.kubeconfig())
                            + "): " + KubernetesFailures.rootMessage(e)
                            + "; set KUBECONFIG to a kubeconfig file, or run the server in the cluster",
                    e);
        }
        Config config = new ConfigBuilder(base)
                .withNamespace(settings.namespace())
                .withUserAgent(USER_AGENT)
                .withRequestRetryBackoffLimit(2)
                .withConnectionTimeout(5_000)
                .withRequestTimeout(30_000)
                .build();
        return new KubernetesContainerRuntime(
                new KubernetesClientBuilder().withConfig(config).build(), settings);
    }

    public KubernetesSettings settings() {
        return settings;
    }

    /** The API server this runtime talks to. */
    public String masterUrl() {
        return client.getConfiguration().getMasterUrl();
    }

    private String what(String verb, String pod) {
        return verb + " pod " + pod + " in namespace " + settings.namespace();
    }

    @Override
    public void ping() {
        try {
            client.pods()
                    .inNamespace(settings.namespace())
                    .list(new ListOptionsBuilder().withLimit(1L).build());
        } catch (KubernetesClientException e) {
            throw KubernetesFailures.of("listing pods in namespace " + settings.namespace() + " at " + masterUrl(), e);
        }
    }

    @Override
    public RuntimeInfo info() {
        try {
            var version = client.getKubernetesVersion();
            ClusterCapacity.Memory memory = ClusterCapacity.of(client, settings.namespace());
            log.info("Kubernetes capacity: {} MiB, {} CPUs ({})", memory.bytes() >> 20, memory.cpus(), memory.source());
            return new RuntimeInfo(
                    version == null ? "" : version.getGitVersion(),
                    version == null ? "" : version.getMajor() + "." + version.getMinor(),
                    memory.bytes(),
                    memory.cpus());
        } catch (KubernetesClientException e) {
            throw KubernetesFailures.of("reading the cluster's version and capacity", e);
        }
    }

    @Override
    public StartedContainer start(RunRequest request) {
        if (!request.volumes().isEmpty()) {
            // mountsVolumes() is false here: a template's copy is streamed into the pod through an exec instead
            throw new ContainerRuntimeException("the Kubernetes runtime mounts no named volume (" + request.volumes()
                    + "); a template's physical copy is streamed in instead");
        }
        Pod created;
        long t0 = System.nanoTime();
        try {
            created = pods().resource(SandboxPods.of(request, settings.namespace()))
                    .create();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                throw new ContainerRuntimeException(
                        "cannot create pod " + request.name() + ": a pod of that name exists in namespace "
                                + settings.namespace() + "; remove the old pod or choose another name",
                        e);
            }
            throw KubernetesFailures.of(
                    what("creating", request.name()) + " from " + request.spec().image(), e);
        }
        try {
            policies()
                    .resource(SandboxNetworkPolicy.of(
                            created, owner(request), request.spec().port(), settings))
                    .create();
        } catch (KubernetesClientException e) {
            removeQuietly(request.name());
            throw KubernetesFailures.of("creating the NetworkPolicy of pod " + request.name() + " (pod removed)", e);
        }
        Pod pod = awaitStarted(request);
        if (log.isDebugEnabled()) {
            log.debug(
                    "pod {} ({}) running at {} in {} ms",
                    request.name(),
                    request.spec().image(),
                    PodStates.address(pod),
                    (System.nanoTime() - t0) / 1_000_000);
        }
        return new StartedContainer(request.name(), request.name(), 0, PodStates.address(pod));
    }

    /** The agent whose pods the NetworkPolicy admits: the owner label, none for a warm-pool pod (or a test's). */
    private static String owner(RunRequest request) {
        if (request.labels().containsKey("roboco.sandbox.pool")) {
            return null;
        }
        return request.labels().get("roboco.sandbox.agent");
    }

    /** Waits until the pod runs with an address (or ran and ended); a pod stuck or too slow is removed and reported. */
    private Pod awaitStarted(RunRequest request) {
        String name = request.name();
        Pod pod;
        try {
            pod = pods().withName(name)
                    .waitUntilCondition(
                            p -> p == null
                                    || PodStates.running(p)
                                    || PodStates.ended(p)
                                    || PodStates.stuck(p).isPresent(),
                            settings.startTimeout().toMillis(),
                            TimeUnit.MILLISECONDS);
        } catch (KubernetesClientException e) {
            Pod last = pods().withName(name).get();
            removeQuietly(name);
            if (last != null && isTimeout(e)) {
                throw new ContainerRuntimeException(
                        "pod " + name + " (" + request.spec().image() + ") was not running within "
                                + settings.startTimeout().toSeconds() + " s (" + PodStates.describe(last)
                                + "); pod removed; check the namespace's quota and the nodes' free memory",
                        e);
            }
            throw KubernetesFailures.of("waiting for pod " + name + " to run (pod removed)", e);
        }
        if (pod == null) {
            throw new ContainerRuntimeException("pod " + name + " was deleted while it started (by someone else)");
        }
        var stuck = PodStates.stuck(pod);
        if (stuck.isPresent()) {
            removeQuietly(name);
            String reason = stuck.get().getReason();
            String detail =
                    stuck.get().getMessage() == null ? "" : ": " + stuck.get().getMessage();
            if (reason.contains("Image")) {
                throw new ContainerRuntimeException("image " + request.spec().image()
                        + " could not be had on the cluster's node (" + reason + detail
                        + "); pod removed; push it to a registry the nodes pull from (for the local images run"
                        + " ./scripts/build-images.sh and load them onto the nodes) or configure the engine's image");
            }
            throw new ContainerRuntimeException(
                    "pod " + name + " (" + request.spec().image() + ") was created but its container did not start ("
                            + reason + detail + "); pod removed");
        }
        return pod;
    }

    private static boolean isTimeout(KubernetesClientException e) {
        Throwable t = e;
        while (t != null) {
            if (t instanceof TimeoutException) {
                return true;
            }
            t = t.getCause();
        }
        return String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("timed out");
    }

    @Override
    public ExecResult exec(String containerId, List<String> command, Map<String, String> env) {
        return exec.run(containerId, command, env, null, null);
    }

    @Override
    public ExecResult exec(
            String containerId, List<String> command, Map<String, String> env, InputStream stdin, OutputStream stdout) {
        return exec.run(containerId, command, env, stdin, stdout);
    }

    @Override
    public Optional<ContainerState> inspect(String containerId) {
        try {
            return Optional.ofNullable(pods().withName(containerId).get()).map(PodStates::of);
        } catch (KubernetesClientException e) {
            throw KubernetesFailures.of(what("reading", containerId), e);
        }
    }

    @Override
    public String logTail(String containerId, int lines) {
        try {
            PodResource pod = pods().withName(containerId);
            String log =
                    pod.inContainer(SandboxPods.CONTAINER).tailingLines(lines).getLog();
            return log == null ? "" : log;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404 || e.getCode() == 400) {
                return "";
            }
            throw KubernetesFailures.of(what("reading the log of", containerId), e);
        }
    }

    @Override
    public void remove(String containerId) {
        try {
            pods().withName(containerId).withGracePeriod(0).delete();
            policies().withName(containerId).delete();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw KubernetesFailures.of(what("deleting", containerId), e);
            }
        }
    }

    /**
     * Lets {@code owner}'s agent reach the pod too: its NetworkPolicy gains the agent (a warm-pool pod claimed). The pod's
     * owner label stays what it was at start; the ledger, not the label, knows a claimed pool pod's owner.
     */
    public void admit(String containerId, String owner) {
        try {
            policies().withName(containerId).edit(p -> SandboxNetworkPolicy.admitting(p, owner, settings));
        } catch (KubernetesClientException e) {
            throw KubernetesFailures.of("admitting agent " + owner + " to pod " + containerId, e);
        }
    }

    @Override
    public List<ContainerState> list(Map<String, String> labels) {
        FilterWatchListDeletable<Pod, PodList, PodResource> selected = pods();
        for (Map.Entry<String, String> e : labels.entrySet()) {
            selected = e.getValue() == null
                    ? selected.withLabel(e.getKey())
                    : selected.withLabel(e.getKey(), PodLabels.value(e.getValue()));
        }
        try {
            return selected.list().getItems().stream().map(PodStates::of).toList();
        } catch (KubernetesClientException e) {
            throw KubernetesFailures.of("listing pods labelled " + labels + " in namespace " + settings.namespace(), e);
        }
    }

    @Override
    public void close() {
        client.close();
    }

    private NonNamespaceOperation<Pod, PodList, PodResource> pods() {
        return client.pods().inNamespace(settings.namespace());
    }

    private NonNamespaceOperation<NetworkPolicy, NetworkPolicyList, Resource<NetworkPolicy>> policies() {
        return client.network().v1().networkPolicies().inNamespace(settings.namespace());
    }

    private void removeQuietly(String name) {
        boolean interrupted = Thread.interrupted();
        try {
            remove(name);
        } catch (RuntimeException e) {
            log.warn("could not remove pod {} after a failed start: {}", name, e.getMessage());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
