package io.roboco.sandbox.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.KnownLengthInput;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;
import io.roboco.sandbox.testkit.ContainerRuntimeContract;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * testkit's {@link ContainerRuntimeContract} against the real daemon (it lives here, not beside the
 * runtime in orchestrator-plugin, because testkit depends on that module), plus what only Docker can show: the security and resource
 * settings the daemon recorded. Needs the local images ./scripts/test.sh builds; fails (never skips)
 * without them. Networking: host mode, services bound to 127.0.0.1 only.
 */
class DockerContainerRuntimeIT extends ContainerRuntimeContract {
    static final String REDIS_IMAGE = "roboco-sandbox/redis:7";
    static final String BASE_IMAGE = "roboco-sandbox/base:bookworm";

    private final DockerContainerRuntime docker = DockerContainerRuntime.connect();

    @BeforeAll
    void daemonAndImagesArePresent() {
        requireDaemonAndImages(docker);
    }

    static void requireDaemonAndImages(DockerContainerRuntime docker) {
        try {
            docker.ping();
        } catch (ContainerRuntimeException e) {
            fail(e.getMessage() + " — run ./scripts/test.sh, which starts Docker and builds the images");
        }
        for (String image : List.of(REDIS_IMAGE, BASE_IMAGE)) {
            try {
                docker.client().inspectImageCmd(image).exec();
            } catch (NotFoundException e) {
                fail("image " + image + " is not on the Docker host at " + docker.dockerHost()
                        + "; run ./scripts/test.sh, which builds the images");
            }
        }
    }

    @Override
    protected ContainerRuntime runtime() {
        return docker;
    }

    @Override
    protected RunRequest longRunningRequest(String name, Map<String, String> labels) {
        return redisRequest(name, labels, freePort());
    }

    static RunRequest redisRequest(String name, Map<String, String> labels, int port) {
        ContainerSpec spec = new ContainerSpec(
                REDIS_IMAGE,
                Map.of(),
                List.of("redis-server", "--bind", "127.0.0.1", "--port", String.valueOf(port), "--save", ""),
                "/data",
                port);
        return new RunRequest(
                name, spec, labels, Limits.sandboxDefaults(), NetworkMode.host(), RunRequest.ENTRYPOINT_CAPABILITIES);
    }

    @Override
    protected RunRequest exitingRequest(String name, Map<String, String> labels, int exitCode) {
        return baseRequest(name, labels, List.of("sh", "-c", "exit " + exitCode), NetworkMode.host());
    }

    private static RunRequest baseRequest(
            String name, Map<String, String> labels, List<String> command, NetworkMode network) {
        return new RunRequest(
                name,
                new ContainerSpec(BASE_IMAGE, Map.of(), command, "/data", 0),
                labels,
                Limits.sandboxDefaults(),
                network,
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
    void daemonRecordsTheLockedDownConfiguration() throws IOException {
        int port = freePort();
        Map<String, String> labels = labels();
        StartedContainer started = docker.start(redisRequest(uniqueName("locked"), labels, port));

        InspectContainerResponse inspected =
                docker.client().inspectContainerCmd(started.id()).exec();
        HostConfig host = inspected.getHostConfig();
        assertThat(host.getTmpFs()).containsOnlyKeys("/data");
        assertThat(host.getTmpFs().get("/data"))
                .contains("rw")
                .contains("size=" + Limits.sandboxDefaults().tmpfsBytes());
        assertThat(host.getMemory()).isEqualTo(536_870_912L);
        assertThat(host.getMemorySwap()).isEqualTo(536_870_912L);
        assertThat(host.getNanoCPUs()).isEqualTo(1_000_000_000L);
        assertThat(host.getPidsLimit()).isEqualTo(512L);
        assertThat(host.getSecurityOpts()).contains("no-new-privileges:true");
        assertThat(host.getCapDrop()).containsExactly(Capability.ALL);
        assertThat(Arrays.stream(host.getCapAdd()).map(Enum::name).collect(Collectors.toSet()))
                .isEqualTo(RunRequest.ENTRYPOINT_CAPABILITIES);
        assertThat(host.getPrivileged()).isFalse();
        assertThat(host.getBinds()).isNullOrEmpty();
        assertThat(host.getMounts()).isNullOrEmpty();
        assertThat(inspected.getMounts())
                .noneMatch(m -> String.valueOf(m.getSource()).contains("docker.sock"));
        assertThat(host.getNetworkMode()).isEqualTo("host");
        assertThat(host.getRestartPolicy().getName()).isIn("", "no");
        assertThat(inspected.getConfig().getLabels()).containsAllEntriesOf(labels);

        assertThat(docker.exec(started.id(), List.of("sh", "-c", "grep ' /data ' /proc/mounts"), Map.of())
                        .stdout())
                .startsWith("tmpfs /data tmpfs");
        String pong = eventually(() -> redisPing(port), reply -> reply.startsWith("+PONG"));
        assertThat(pong).startsWith("+PONG");
        docker.remove(started.id());
    }

    @Test
    void missingNamedNetworkFailsClearlyAndLeavesNoContainer() {
        Map<String, String> labels = labels();
        labels.put("roboco.sandbox.instance", "net-" + runId);
        String network = "roboco-no-such-network-" + runId;
        RunRequest request = baseRequest(uniqueName("net"), labels, List.of("sleep", "60"), NetworkMode.named(network));
        assertThatThrownBy(() -> docker.start(request))
                .isInstanceOf(ContainerRuntimeException.class)
                .hasMessageContaining("network '" + network + "' does not exist");
        assertThat(docker.list(Map.of("roboco.sandbox.instance", "net-" + runId)))
                .isEmpty();
    }

    @Test
    void startFailureAfterCreateRemovesTheContainer() {
        Map<String, String> labels = labels();
        labels.put("roboco.sandbox.instance", "nostart-" + runId);
        RunRequest request = baseRequest(uniqueName("nostart"), labels, List.of("/no/such/binary"), NetworkMode.host());
        assertThatThrownBy(() -> docker.start(request))
                .isInstanceOf(ContainerRuntimeException.class)
                .hasMessageContaining(request.name())
                .hasMessageContaining("did not start")
                .hasMessageContaining("container removed");
        assertThat(docker.list(Map.of("roboco.sandbox.instance", "nostart-" + runId)))
                .isEmpty();
    }

    @Test
    void unreachableDaemonSaysWhatToDo() {
        try (DockerContainerRuntime nowhere =
                DockerContainerRuntime.connect("unix:///tmp/roboco-no-docker-" + runId + ".sock")) {
            assertThatThrownBy(nowhere::ping)
                    .isInstanceOf(ContainerRuntimeException.class)
                    .hasMessageContaining("Docker daemon at unix:///tmp/roboco-no-docker-")
                    .hasMessageContaining("not reachable")
                    .hasMessageContaining("./scripts/test.sh")
                    .hasMessageContaining("DOCKER_HOST");
            assertThatThrownBy(() -> nowhere.start(longRunningRequest(uniqueName("nowhere"), labels())))
                    .hasMessageContaining("not reachable");
        }
    }

    @Test
    void execThatOverrunsItsTimeoutFailsClearly() {
        try (DockerContainerRuntime impatient =
                DockerContainerRuntime.connect(docker.dockerHost(), Duration.ofSeconds(1))) {
            StartedContainer started = impatient.start(longRunningRequest(uniqueName("slowexec"), labels()));
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> impatient.exec(started.id(), List.of("sleep", "5"), Map.of()))
                    .isInstanceOf(ContainerRuntimeException.class)
                    .hasMessageContaining("did not finish within 1 s");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(4));
            impatient.remove(started.id());
        }
    }

    @Test
    void anInputOfKnownLengthReachesTheCommandWholeWithItsOutputAndExitCode() throws Exception {
        StartedContainer started = docker.start(longRunningRequest(uniqueName("knownlength"), labels()));
        byte[] input = new byte[3 * 1024 * 1024 + 17]; // over many 256 KB writes, not a multiple of them
        new Random(23).nextBytes(input);
        String expected =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(input));
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        ExecResult result = docker.execAs(
                started.id(),
                "65534:65534",
                List.of("sh", "-c", "sha256sum | cut -d' ' -f1; echo done >&2; exit 7"),
                Map.of(),
                new KnownLengthInput(new ByteArrayInputStream(input), input.length),
                out);

        assertThat(result.exitCode()).isEqualTo(7);
        assertThat(result.stderr().strip()).isEqualTo("done");
        assertThat(out.toString(StandardCharsets.UTF_8).strip())
                .as("the command read the whole input, once")
                .isEqualTo(expected);
        docker.remove(started.id());
    }

    @Test
    void listingReportsExitedContainersWithTheirCode() {
        StartedContainer started = docker.start(exitingRequest(uniqueName("listexit"), labels(), 5));
        ContainerState listed = eventually(
                () -> docker.list(Map.of(RUN_LABEL, runId)).stream()
                        .filter(s -> s.id().equals(started.id()))
                        .findFirst()
                        .orElseThrow(),
                s -> !s.running());
        assertThat(listed.exitCode()).isEqualTo(5);
        assertThat(listed.image()).isEqualTo(BASE_IMAGE);
        docker.remove(started.id());
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port on 127.0.0.1", e);
        }
    }

    private static String redisPing(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[64];
            int n = in.read(buffer);
            return n <= 0 ? "" : new String(buffer, 0, n, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return "";
        }
    }
}
