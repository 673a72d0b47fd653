package io.roboco.sandbox.bench;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.Runtimes;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.kubernetes.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * {@code cold_postgres_k8s}: the cold path of {@code cold_postgres} with the server on the Kubernetes runtime
 * ({@code ROBOCO_SANDBOX_RUNTIME=kubernetes}) against testkit's test cluster: fabric8's mock API server in CRUD mode
 * and the Docker-backed kubelet, which runs each pod as a container on a bridge network of its own. The difference to
 * {@code cold_postgres} is the Kubernetes path: the pod and NetworkPolicy creates, the watch that sees the pod Running
 * with its IP, activation through the exec API, and the pod deletes at release. It is not a real cluster's
 * (scheduling, image pulls, CNI set-up are absent; see docs/kubernetes.md). The cluster starts at the first round
 * that runs this contender, so a run that leaves it out (`--only`) pays nothing.
 */
final class KubernetesContender implements AutoCloseable {
    static final String NAME = "cold_postgres_k8s";
    private static final String NAMESPACE = "roboco-bench";

    private final Path state;
    private final Map<String, String> images;
    private final EngineRegistry registry;
    private TestCluster cluster;
    private RunningServer server;
    private Api api;

    KubernetesContender(Path state, Map<String, String> images, EngineRegistry registry) {
        this.state = state;
        this.images = images;
        this.registry = registry;
    }

    /** The server on the test cluster, started at the first call. */
    Api api() throws Exception {
        if (api == null) {
            cluster = TestCluster.start(NAMESPACE);
            Files.createDirectories(state);
            ServerConfig config = ServerConfig.fromEnv(env()).withPort(0);
            ContainerRuntime runtime = Runtimes.connect(config);
            server = SandboxServer.start(
                    config, runtime, registry, JdbcSettingsStore.embedded(state), Clock.systemUTC());
            api = new Api(server.port(), Bench.API, Bench.ADMIN);
            api.project("pg", List.of("postgres"));
        }
        return api;
    }

    /** The bench servers' settings ({@code Bench.Servers.env}), on the Kubernetes runtime in the test cluster. */
    private Map<String, String> env() {
        Map<String, String> env = Bench.Servers.env(state, images);
        env.remove("ROBOCO_SANDBOX_NETWORK");
        env.put("ROBOCO_SANDBOX_RUNTIME", "kubernetes");
        env.put("ROBOCO_SANDBOX_K8S_NAMESPACE", NAMESPACE);
        env.put("ROBOCO_SANDBOX_K8S_START_TIMEOUT", "180s");
        env.put("KUBECONFIG", cluster.kubeconfig().toString());
        return env;
    }

    /** Idempotent: the bench closes it before its report and again when it leaves. */
    @Override
    public void close() {
        RunningServer s = server;
        TestCluster c = cluster;
        server = null;
        cluster = null;
        api = null;
        try {
            if (s != null) {
                s.close();
            }
        } finally {
            if (c != null) {
                c.close(); // removes every container and the network it made, by its label
            }
        }
    }
}
