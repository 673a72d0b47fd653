package io.roboco.sandbox.testkit.kubernetes;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Network;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.roboco.sandbox.engine.ExecResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * A Kubernetes cluster for tests, with real databases behind it: fabric8's mock API server in CRUD mode (real HTTP,
 * real paths, label selectors, watches, the status subresource; it never runs a pod) on 127.0.0.1, and a
 * {@link DockerKubelet} that runs each pod as a Docker container on a bridge network this cluster creates. The
 * endpoints a runtime hands out are container addresses on that network; the tests reach them from inside a container
 * on it ({@link #runOnNetwork}) or from the host, which is that network's gateway.
 *
 * <p>Every container and the network carry {@value #LABEL}{@code =<id>}; {@link #close()} removes those and nothing
 * else. What it does not do (scheduling, CNI enforcement of NetworkPolicies, image pulls, the memory accounting of a
 * real kubelet) is listed in docs/kubernetes.md.
 */
public final class TestCluster implements AutoCloseable {
    /** On every container and network a test cluster makes: the cluster's id. */
    public static final String LABEL = "roboco.sandbox.test.kubelet";
    /** On a pod's container: the pod's name. */
    public static final String POD_LABEL = "roboco.sandbox.test.kubelet.pod";
    /**
     * fabric8's mock server logs every request at INFO through java.util.logging (a line per API call, hundreds per
     * test); its warnings still show. Held here because java.util.logging keeps loggers only weakly.
     */
    private static final Logger MOCK_SERVER_LOG = quiet(Logger.getLogger("io.fabric8.mockwebserver"));
    /** The User-Agent of the kubelet's own API calls. */
    public static final String KUBELET_AGENT = "roboco-test-kubelet";

    private final String id = UUID.randomUUID().toString().substring(0, 8);
    private final String namespace;
    private final ClusterDispatcher dispatcher = new ClusterDispatcher();
    private final KubernetesMockServer server;
    private final DockerClient docker;
    private final String network;
    private final KubernetesClient kubeletClient;
    private final DockerKubelet kubelet;
    private final Path kubeconfig;

    private TestCluster(String namespace) {
        this.namespace = namespace;
        this.docker = docker();
        this.network = "roboco-kube-" + id;
        docker.createNetworkCmd()
                .withName(network)
                .withDriver("bridge")
                .withLabels(Map.of(LABEL, id, "roboco.sandbox.test", "kubelet"))
                .exec();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        try {
            server.init(InetAddress.getByName("127.0.0.1"), 0);
            kubeconfig = Files.createTempFile("roboco-test-cluster-" + id, ".kubeconfig");
            Files.writeString(kubeconfig, kubeconfigText(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            removeDockerObjects();
            throw new UncheckedIOException(e);
        }
        kubeletClient = client(KUBELET_AGENT);
        kubelet = new DockerKubelet(kubeletClient, docker, namespace, network, id);
        dispatcher.attach(kubelet);
        kubelet.start();
    }

    private static Logger quiet(Logger logger) {
        logger.setLevel(Level.WARNING);
        return logger;
    }

    /** Starts a test cluster whose sandboxes go in {@code namespace}. Needs the Docker daemon. */
    public static TestCluster start(String namespace) {
        return new TestCluster(namespace);
    }

    public String id() {
        return id;
    }

    public String namespace() {
        return namespace;
    }

    /** The API server's URL ({@code http://127.0.0.1:<port>}). */
    public String url() {
        return "http://127.0.0.1:" + server.getPort();
    }

    /** A kubeconfig file for this cluster (what {@code KUBECONFIG} of a child server points at). */
    public Path kubeconfig() {
        return kubeconfig;
    }

    /** The Docker network the pods run on. */
    public String network() {
        return network;
    }

    /** A client of this cluster, for a test's own look (its requests are recorded under {@code userAgent}). */
    public KubernetesClient client(String userAgent) {
        Config config = new ConfigBuilder()
                .withMasterUrl(url())
                .withNamespace(namespace)
                .withUserAgent(userAgent)
                .withTrustCerts(true)
                .withRequestRetryBackoffLimit(2)
                .build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /** The Docker container of {@code pod}, or null when it runs none. */
    public String containerOf(String pod) {
        return kubelet.containerOf(pod);
    }

    /** Kills the container of {@code pod} (SIGKILL), as a node's OOM killer or a crash would. */
    public void kill(String pod) {
        String container = containerOf(pod);
        if (container == null) {
            throw new IllegalStateException("pod " + pod + " runs no container on the test cluster");
        }
        docker.killContainerCmd(container).exec();
    }

    /** The containers this cluster runs now, by pod name. */
    public Map<String, String> runningPods() {
        return docker.listContainersCmd().withLabelFilter(Map.of(LABEL, id)).exec().stream()
                .collect(Collectors.toMap(c -> c.getLabels().get(POD_LABEL), Container::getId, (a, b) -> a));
    }

    /** Every request the API server saw from clients whose User-Agent starts with {@code userAgent}: "METHOD path". */
    public List<String> callsBy(String userAgent) {
        return dispatcher.calls().stream()
                .filter(c -> c.userAgent().startsWith(userAgent))
                .map(c -> c.method() + " " + c.path())
                .toList();
    }

    /**
     * Runs {@code command} in a throwaway container of {@code image} on the pods' network, its environment {@code env}
     * (never on the command line), and waits up to {@code timeout}: how a test reaches a pod's address as another pod would.
     */
    public ExecResult runOnNetwork(String image, Map<String, String> env, List<String> command, Duration timeout) {
        String name = "rbk-" + id + "-client-" + UUID.randomUUID().toString().substring(0, 6);
        String container = docker.createContainerCmd(image)
                .withName(name)
                .withEntrypoint(command.get(0))
                .withCmd(command.subList(1, command.size()))
                .withEnv(env.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .toList())
                .withLabels(Map.of(LABEL, id, "roboco.sandbox.test", "kubelet"))
                .withHostConfig(HostConfig.newHostConfig().withNetworkMode(network))
                .exec()
                .getId();
        try {
            docker.startContainerCmd(container).exec();
            Integer code = docker.waitContainerCmd(container)
                    .start()
                    .awaitStatusCode(timeout.toMillis(), TimeUnit.MILLISECONDS);
            StringBuilder out = new StringBuilder();
            StringBuilder err = new StringBuilder();
            docker.logContainerCmd(container)
                    .withStdOut(true)
                    .withStdErr(true)
                    .exec(new ResultCallback.Adapter<Frame>() {
                        @Override
                        public void onNext(Frame frame) {
                            String text = new String(frame.getPayload(), StandardCharsets.UTF_8);
                            synchronized (out) {
                                (frame.getStreamType().name().equals("STDERR") ? err : out).append(text);
                            }
                        }
                    })
                    .awaitCompletion(10, TimeUnit.SECONDS);
            synchronized (out) {
                return new ExecResult(code, out.toString(), err.toString());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            docker.removeContainerCmd(container).withForce(true).exec();
        }
    }

    private String kubeconfigText() {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: roboco-test
                  cluster:
                    server: %s
                contexts:
                - name: roboco-test
                  context:
                    cluster: roboco-test
                    user: roboco-test
                    namespace: %s
                current-context: roboco-test
                users:
                - name: roboco-test
                  user:
                    token: roboco-test-token
                """.formatted(url(), namespace);
    }

    @Override
    public void close() {
        kubelet.close();
        kubeletClient.close();
        server.destroy();
        removeDockerObjects();
        try {
            Files.deleteIfExists(kubeconfig);
        } catch (IOException | RuntimeException ignored) {
            // a temp file left behind
        }
        try {
            docker.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** Removes this cluster's containers and its network: what carries its label, nothing else. */
    private void removeDockerObjects() {
        for (Container c : docker.listContainersCmd()
                .withShowAll(true)
                .withLabelFilter(Map.of(LABEL, id))
                .exec()) {
            try {
                docker.removeContainerCmd(c.getId())
                        .withForce(true)
                        .withRemoveVolumes(true)
                        .exec();
            } catch (NotFoundException | ConflictException e) {
                // gone already, or going
            }
        }
        for (Network n : docker.listNetworksCmd()
                .withFilter("label", List.of(LABEL + "=" + id))
                .exec()) {
            // a container's removal may still be under way: its endpoint goes with it
            for (int attempt = 1; ; attempt++) {
                try {
                    docker.removeNetworkCmd(n.getId()).exec();
                    break;
                } catch (NotFoundException e) {
                    break;
                } catch (RuntimeException e) {
                    if (attempt == 50) {
                        throw e;
                    }
                    sleep(200);
                }
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static DockerClient docker() {
        String host = System.getenv("DOCKER_HOST");
        var config = DefaultDockerClientConfig.createDefaultConfigBuilder()
                .withDockerHost(host == null || host.isBlank() ? "unix:///var/run/docker.sock" : host)
                .build();
        var http = new ApacheDockerHttpClient.Builder()
                .dockerHost(config.getDockerHost())
                .sslConfig(config.getSSLConfig())
                .maxConnections(32)
                .connectionTimeout(Duration.ofSeconds(5))
                .responseTimeout(Duration.ofMinutes(11))
                .build();
        return DockerClientImpl.getInstance(config, http);
    }
}
