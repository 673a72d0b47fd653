package io.roboco.sandbox.bench;

import com.github.dockerjava.api.model.Capability;
import io.roboco.sandbox.provision.PortAllocator;
import io.roboco.sandbox.runtime.Limits;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.ImagePullPolicy;
import org.testcontainers.utility.DockerImageName;

/**
 * Testcontainers' {@code GenericContainer} with a local Postgres image and the same flags (host network,
 * tmpfs data dir, memory/CPU/pids caps, capabilities), its usual wait strategy for Postgres
 * ({@code Wait.forLogMessage(".*database system is ready to accept connections.*\\s", times)}: once for the
 * sandbox image, which has no temporary init server; twice, as {@code PostgreSQLContainer} waits, for the
 * official-like image, whose temporary server logs it first), a pull policy that never pulls, then one JDBC login
 * with the container's credentials so the figure is time to <em>working</em> credentials, like the others.
 */
final class TestcontainersContender {
    private static final ImagePullPolicy NEVER_PULL = image -> false;
    private final String image;
    private final int readyLines;
    private final Map<String, String> labels;
    private final PortAllocator ports;

    /** @param readyLines how many "ready to accept connections" lines the image logs before it serves (1, or 2 with an init server) */
    TestcontainersContender(String image, int readyLines, Map<String, String> labels, PortAllocator ports) {
        this.image = image;
        this.readyLines = readyLines;
        this.labels = labels;
        this.ports = ports;
    }

    /** Checks the environment a comparison run needs (no registry, no Ryuk, /.dockerenv present here). */
    static List<String> missingEnvironment() {
        return List.of("TESTCONTAINERS_RYUK_DISABLED", "TESTCONTAINERS_CHECKS_DISABLE", "TESTCONTAINERS_HOST_OVERRIDE")
                .stream()
                .filter(k -> System.getenv(k) == null)
                .toList();
    }

    double once() throws Exception {
        int port = ports.next();
        Limits limits = Limits.sandboxDefaults();
        String password = "benchpassword" + port;
        long t0 = System.nanoTime();
        try (GenericContainer<?> pg = new GenericContainer<>(DockerImageName.parse(image))) {
            pg.withImagePullPolicy(NEVER_PULL)
                    .withNetworkMode("host")
                    .withEnv(Map.of(
                            "POSTGRES_USER",
                            "bench",
                            "POSTGRES_PASSWORD",
                            password,
                            "POSTGRES_DB",
                            "bench",
                            "PGDATA",
                            "/var/lib/postgresql/data",
                            "PGPORT",
                            Integer.toString(port)))
                    .withCommand(
                            "postgres",
                            "-c",
                            "listen_addresses=127.0.0.1",
                            "-c",
                            "port=" + port,
                            "-c",
                            "fsync=off",
                            "-c",
                            "synchronous_commit=off",
                            "-c",
                            "full_page_writes=off")
                    .withTmpFs(Map.of("/var/lib/postgresql/data", "rw,size=" + limits.tmpfsBytes() + ",mode=1777"))
                    .withLabels(labels)
                    .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig()
                            .withMemory(limits.memoryBytes())
                            .withMemorySwap(limits.memoryBytes())
                            .withNanoCPUs(limits.nanoCpus())
                            .withPidsLimit(limits.pidsLimit())
                            .withSecurityOpts(List.of("no-new-privileges:true"))
                            .withCapDrop(Capability.ALL)
                            .withCapAdd(
                                    Capability.CHOWN,
                                    Capability.SETUID,
                                    Capability.SETGID,
                                    Capability.FOWNER,
                                    Capability.DAC_OVERRIDE))
                    .waitingFor(Wait.forLogMessage(".*database system is ready to accept connections.*\\s", readyLines)
                            .withStartupTimeout(Duration.ofSeconds(60)));
            pg.start();
            try (Connection c = DriverManager.getConnection(
                            "jdbc:postgresql://127.0.0.1:" + port + "/bench?sslmode=disable", "bench", password);
                    Statement s = c.createStatement()) {
                s.execute("SELECT 1");
            }
            double ms = (System.nanoTime() - t0) / 1e6;
            return ms;
        }
    }
}
