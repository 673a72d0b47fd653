package io.roboco.sandbox.testkit.kubernetes;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.RestartPolicy;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.mockwebserver.http.MockResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A test-only kubelet: it watches the pods of one namespace on the mock API server and runs each as a Docker
 * container on the test cluster's bridge network: the pod's image, env, command and args, memory and CPU limits,
 * a tmpfs (capped at the {@code sizeLimit}) for each memory-backed {@code emptyDir}, the capabilities the pod drops
 * and adds, no-new-privileges when privilege escalation is off, the pod's user. It writes the pod's status back
 * (Running and Ready, {@code podIP} = the container's address on that network; Failed or Succeeded with the exit
 * code, {@code OOMKilled} when the kernel killed it; a waiting reason when the image is missing), answers exec and
 * log requests from that container, and removes the container when the pod is deleted.
 *
 * <p>Not a scheduler, no CNI: every pod runs on the one Docker host, NetworkPolicies are stored and not enforced,
 * images are never pulled. Every container it makes carries {@link TestCluster#LABEL}{@code =<cluster id>}.
 */
final class DockerKubelet implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DockerKubelet.class);
    private static final long PIDS = 512;

    private final KubernetesClient client;
    private final DockerClient docker;
    private final String namespace;
    private final String network;
    private final String clusterId;
    private final Map<String, String> containers = new ConcurrentHashMap<>();
    private final Map<String, Boolean> ended = new ConcurrentHashMap<>();
    /** Pods whose Running status is written: only those are reaped (so Failed is never overwritten by Running). */
    private final Map<String, Boolean> reported = new ConcurrentHashMap<>();

    private final ExecutorService work = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "test-kubelet");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService exits = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "test-kubelet-exits");
        t.setDaemon(true);
        return t;
    });
    private SharedIndexInformer<Pod> informer;

    DockerKubelet(KubernetesClient client, DockerClient docker, String namespace, String network, String clusterId) {
        this.client = client;
        this.docker = docker;
        this.namespace = namespace;
        this.network = network;
        this.clusterId = clusterId;
    }

    void start() {
        informer = client.pods().inNamespace(namespace).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                String name = pod.getMetadata().getName();
                if (containers.putIfAbsent(name, "") == null) {
                    work.execute(() -> run(pod));
                }
            }

            @Override
            public void onUpdate(Pod before, Pod after) {
                onAdd(after);
            }

            @Override
            public void onDelete(Pod pod, boolean unknownFinalState) {
                work.execute(() -> deleted(pod.getMetadata().getName()));
            }
        });
        exits.scheduleWithFixedDelay(this::reapExited, 200, 200, TimeUnit.MILLISECONDS);
    }

    /** The Docker container id running {@code pod}, or null. */
    String containerOf(String pod) {
        String id = containers.get(pod);
        return id == null || id.isEmpty() ? null : id;
    }

    String containerName(String pod) {
        String name = "rbk-" + clusterId + "-" + pod;
        return name.length() > 120 ? name.substring(0, 120) : name;
    }

    private void run(Pod pod) {
        String name = pod.getMetadata().getName();
        io.fabric8.kubernetes.api.model.Container spec =
                pod.getSpec().getContainers().get(0);
        String image = spec.getImage();
        try {
            docker.inspectImageCmd(image).exec();
        } catch (NotFoundException e) {
            setStatus(
                    name,
                    s -> waiting(
                            pod,
                            "ErrImagePull",
                            "image " + image + " is not on the test cluster's Docker host (its kubelet never pulls)"));
            return;
        }
        String id;
        try {
            id = create(pod, spec);
            docker.startContainerCmd(id).exec();
        } catch (RuntimeException e) {
            log.info("test kubelet: pod {} did not start: {}", name, e.getMessage());
            setStatus(name, s -> waiting(pod, "RunContainerError", String.valueOf(e.getMessage())));
            return;
        }
        containers.put(name, id);
        if (client.pods().inNamespace(namespace).withName(name).get() == null) {
            deleted(name);
            return;
        }
        InspectContainerResponse inspected = docker.inspectContainerCmd(id).exec();
        var net = inspected.getNetworkSettings().getNetworks().get(network);
        String ip =
                net == null || net.getIpAddress() == null || net.getIpAddress().isBlank() ? null : net.getIpAddress();
        String now = Instant.now().toString();
        setStatus(
                name,
                s -> new PodStatusBuilder()
                        .withPhase("Running")
                        .withPodIP(ip)
                        .withPodIPs(ip == null ? List.of() : List.of(new PodIP(ip)))
                        .withHostIP("127.0.0.1")
                        .withStartTime(now)
                        .withConditions(conditions(true))
                        .withContainerStatuses(new ContainerStatusBuilder()
                                .withName(spec.getName())
                                .withImage(image)
                                .withImageID(inspected.getImageId())
                                .withContainerID("docker://" + id)
                                .withReady(true)
                                .withStarted(true)
                                .withRestartCount(0)
                                .withState(new ContainerStateBuilder()
                                        .withNewRunning()
                                        .withStartedAt(now)
                                        .endRunning()
                                        .build())
                                .build())
                        .build());
        reported.put(name, true);
    }

    private String create(Pod pod, io.fabric8.kubernetes.api.model.Container spec) {
        Map<String, String> tmpfs = new HashMap<>();
        for (VolumeMount mount : spec.getVolumeMounts()) {
            for (Volume volume : pod.getSpec().getVolumes()) {
                if (volume.getName().equals(mount.getName())
                        && volume.getEmptyDir() != null
                        && "Memory".equals(volume.getEmptyDir().getMedium())) {
                    Quantity size = volume.getEmptyDir().getSizeLimit();
                    tmpfs.put(mount.getMountPath(), "rw,mode=1777" + (size == null ? "" : ",size=" + bytes(size)));
                }
            }
        }
        HostConfig host = HostConfig.newHostConfig()
                .withNetworkMode(network)
                .withTmpFs(tmpfs)
                .withPidsLimit(PIDS)
                .withRestartPolicy(RestartPolicy.noRestart())
                .withPrivileged(false);
        Map<String, Quantity> limits =
                spec.getResources() == null ? null : spec.getResources().getLimits();
        if (limits != null && limits.get("memory") != null) {
            long memory = bytes(limits.get("memory"));
            host.withMemory(memory).withMemorySwap(memory);
        }
        if (limits != null && limits.get("cpu") != null) {
            host.withNanoCPUs(
                    limits.get("cpu").getNumericalAmount().movePointRight(9).longValue());
        }
        SecurityContext security = spec.getSecurityContext();
        String user = null;
        if (security != null) {
            if (Boolean.FALSE.equals(security.getAllowPrivilegeEscalation())) {
                host.withSecurityOpts(List.of("no-new-privileges:true"));
            }
            if (security.getCapabilities() != null) {
                if (security.getCapabilities().getDrop().contains("ALL")) {
                    host.withCapDrop(Capability.ALL);
                }
                host.withCapAdd(security.getCapabilities().getAdd().stream()
                        .map(Capability::valueOf)
                        .toArray(Capability[]::new));
            }
            if (security.getRunAsUser() != null) {
                user = security.getRunAsUser()
                        + (security.getRunAsGroup() == null ? "" : ":" + security.getRunAsGroup());
            }
        }
        List<String> env = new ArrayList<>();
        for (EnvVar var : spec.getEnv()) {
            env.add(var.getName() + "=" + (var.getValue() == null ? "" : var.getValue()));
        }
        Map<String, String> labels = new HashMap<>();
        labels.put(TestCluster.LABEL, clusterId);
        labels.put(TestCluster.POD_LABEL, pod.getMetadata().getName());
        CreateContainerCmd cmd = docker.createContainerCmd(spec.getImage())
                .withName(containerName(pod.getMetadata().getName()))
                .withHostName(hostName(pod.getMetadata().getName()))
                .withEnv(env)
                .withLabels(labels)
                .withHostConfig(host);
        if (user != null) {
            cmd.withUser(user);
        }
        if (spec.getCommand() != null && !spec.getCommand().isEmpty()) {
            cmd.withEntrypoint(spec.getCommand());
        }
        if (spec.getArgs() != null && !spec.getArgs().isEmpty()) {
            cmd.withCmd(spec.getArgs());
        }
        return cmd.exec().getId();
    }

    private static String hostName(String pod) {
        return pod.length() > 63 ? pod.substring(0, 63) : pod;
    }

    private static long bytes(Quantity q) {
        return Quantity.getAmountInBytes(q).longValue();
    }

    private static List<PodCondition> conditions(boolean ready) {
        String r = ready ? "True" : "False";
        return List.of(
                condition("PodScheduled", "True"),
                condition("Initialized", "True"),
                condition("ContainersReady", r),
                condition("Ready", r));
    }

    private static PodCondition condition(String type, String status) {
        return new PodConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withLastTransitionTime(Instant.now().toString())
                .build();
    }

    private static PodStatus waiting(Pod pod, String reason, String message) {
        return new PodStatusBuilder()
                .withPhase("Pending")
                .withConditions(condition("PodScheduled", "True"))
                .withContainerStatuses(new ContainerStatusBuilder()
                        .withName(pod.getSpec().getContainers().get(0).getName())
                        .withImage(pod.getSpec().getContainers().get(0).getImage())
                        .withReady(false)
                        .withRestartCount(0)
                        .withState(new ContainerStateBuilder()
                                .withNewWaiting()
                                .withReason(reason)
                                .withMessage(message)
                                .endWaiting()
                                .build())
                        .build())
                .build();
    }

    /** Containers that exited: their pods become Failed (or Succeeded) with the exit code, once. */
    private void reapExited() {
        try {
            List<Container> gone = docker.listContainersCmd()
                    .withShowAll(true)
                    .withLabelFilter(Map.of(TestCluster.LABEL, clusterId))
                    .withStatusFilter(List.of("exited", "dead"))
                    .exec();
            for (Container c : gone) {
                String pod = c.getLabels().get(TestCluster.POD_LABEL);
                if (pod == null
                        || !c.getId().equals(containers.get(pod))
                        || !reported.containsKey(pod)
                        || ended.putIfAbsent(pod, true) != null) {
                    continue;
                }
                var state = docker.inspectContainerCmd(c.getId()).exec().getState();
                long code = state.getExitCodeLong() == null ? -1 : state.getExitCodeLong();
                boolean oom = Boolean.TRUE.equals(state.getOOMKilled());
                setStatus(pod, s -> {
                    s.setPhase(code == 0 ? "Succeeded" : "Failed");
                    s.setConditions(conditions(false));
                    var status = s.getContainerStatuses().get(0);
                    status.setReady(false);
                    status.setStarted(false);
                    status.setState(new ContainerStateBuilder()
                            .withNewTerminated()
                            .withExitCode((int) code)
                            .withReason(oom ? "OOMKilled" : code == 0 ? "Completed" : "Error")
                            .withFinishedAt(Instant.now().toString())
                            .withContainerID("docker://" + c.getId())
                            .endTerminated()
                            .build());
                    return s;
                });
            }
        } catch (RuntimeException | Error e) {
            log.warn("test kubelet: reaping exited containers failed", e);
        }
    }

    private void deleted(String pod) {
        String id = containers.remove(pod);
        ended.remove(pod);
        reported.remove(pod);
        if (id == null || id.isEmpty()) {
            return;
        }
        try {
            docker.removeContainerCmd(id)
                    .withForce(true)
                    .withRemoveVolumes(true)
                    .exec();
        } catch (NotFoundException | ConflictException e) {
            // already gone, or going
        } catch (RuntimeException e) {
            log.warn("test kubelet: could not remove container {} of pod {}: {}", id, pod, e.getMessage());
        }
    }

    /** Writes the pod's status (read fresh, changed by {@code change}); a pod gone meanwhile is left alone. */
    private void setStatus(String name, UnaryOperator<PodStatus> change) {
        for (int attempt = 0; attempt < 20; attempt++) {
            Pod current = client.pods().inNamespace(namespace).withName(name).get();
            if (current == null) {
                return;
            }
            current.setStatus(change.apply(current.getStatus() == null ? new PodStatus() : current.getStatus()));
            try {
                client.pods().inNamespace(namespace).resource(current).updateStatus();
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    if (e.getCode() == 404) {
                        return;
                    }
                    throw e;
                }
            }
        }
        log.warn("test kubelet: status of pod {} not written after 20 conflicts", name);
    }

    MockResponse exec(String pod, Map<String, List<String>> query) {
        String id = containerOf(pod);
        if (id == null || ended.containsKey(pod)) {
            return status(
                    id == null
                                    && client.pods()
                                                    .inNamespace(namespace)
                                                    .withName(pod)
                                                    .get()
                                            == null
                            ? 404
                            : 400,
                    id == null
                            ? "pods \"" + pod + "\" not found"
                            : "container not found (pod " + pod + " not running)");
        }
        List<String> command = query.getOrDefault("command", List.of());
        boolean stdin = query.getOrDefault("stdin", List.of("false")).contains("true");
        return new MockResponse()
                .setHeader("Sec-WebSocket-Protocol", "v4.channel.k8s.io")
                .withWebSocketUpgrade(new ExecSession(docker, id, command, stdin, work));
    }

    MockResponse log(String pod, Map<String, List<String>> query) {
        String id = containerOf(pod);
        if (id == null) {
            return status(404, "pods \"" + pod + "\" not found");
        }
        int tail =
                Integer.parseInt(query.getOrDefault("tailLines", List.of("100")).get(0));
        StringBuilder out = new StringBuilder();
        try {
            docker.logContainerCmd(id)
                    .withStdOut(true)
                    .withStdErr(true)
                    .withTail(tail)
                    .exec(new ResultCallback.Adapter<Frame>() {
                        @Override
                        public void onNext(Frame frame) {
                            synchronized (out) {
                                out.append(new String(frame.getPayload(), StandardCharsets.UTF_8));
                            }
                        }
                    })
                    .awaitCompletion(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (NotFoundException e) {
            return status(404, "container of pod " + pod + " is gone");
        }
        synchronized (out) {
            return new MockResponse().setResponseCode(200).setBody(out.toString());
        }
    }

    private static MockResponse status(int code, String message) {
        return new MockResponse()
                .setResponseCode(code)
                .setHeader("Content-Type", "application/json")
                .setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                        + "\"message\":\"" + message.replace("\"", "\\\"") + "\",\"code\":" + code + "}");
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.close();
        }
        exits.shutdownNow();
        work.shutdownNow();
    }
}
