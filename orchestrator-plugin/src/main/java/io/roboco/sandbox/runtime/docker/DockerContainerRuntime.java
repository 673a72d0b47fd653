package io.roboco.sandbox.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.command.InspectVolumeResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Info;
import com.github.dockerjava.api.model.Ports;
import com.github.dockerjava.api.model.Version;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.KnownLengthInput;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.LogCap;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.NetworkSpec;
import io.roboco.sandbox.runtime.NetworkState;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.RuntimeInfo;
import io.roboco.sandbox.runtime.StartedContainer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * {@link ContainerRuntime} on a Docker daemon through docker-java (httpclient5 transport). Never pulls:
 * images must already be local. Create + start are two API calls; nothing is inspected up front.
 */
public final class DockerContainerRuntime implements ContainerRuntime {
    /** Used when neither an explicit host nor {@code DOCKER_HOST} is given. */
    public static final String DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock";
    /** How long {@link #exec} waits for a command before giving up. */
    public static final Duration DEFAULT_EXEC_TIMEOUT = Duration.ofSeconds(60);

    private static final Duration LOG_TIMEOUT = Duration.ofSeconds(10);
    private static final Logger log = LoggerFactory.getLogger(DockerContainerRuntime.class);

    private final DockerClient client;
    private final String dockerHost;
    private final Duration execTimeout;
    private final LogCap logs;
    private final DockerNetworks networks;

    private DockerContainerRuntime(DockerClient client, String dockerHost, Duration execTimeout, LogCap logs) {
        this.client = client;
        this.dockerHost = dockerHost;
        this.execTimeout = execTimeout;
        this.logs = logs;
        this.networks = new DockerNetworks(client, dockerHost);
    }

    /** Connects to {@code DOCKER_HOST}, or {@value #DEFAULT_DOCKER_HOST} when it is unset. */
    public static DockerContainerRuntime connect() {
        return connect(null);
    }

    /** Connects to the given daemon ({@code unix:///…} or {@code tcp://…}); null or blank means {@link #connect()}. */
    public static DockerContainerRuntime connect(String dockerHost) {
        return connect(dockerHost, DEFAULT_EXEC_TIMEOUT);
    }

    public static DockerContainerRuntime connect(String dockerHost, Duration execTimeout) {
        return connect(dockerHost, execTimeout, LogCap.defaults());
    }

    /** As {@link #connect(String, Duration)}, every container's log capped on the host at {@code logs}. */
    public static DockerContainerRuntime connect(String dockerHost, Duration execTimeout, LogCap logs) {
        Objects.requireNonNull(logs, "logs");
        String host = dockerHost;
        if (host == null || host.isBlank()) {
            String env = System.getenv("DOCKER_HOST");
            host = env == null || env.isBlank() ? DEFAULT_DOCKER_HOST : env;
        }
        try {
            DockerClientConfig config = DefaultDockerClientConfig.createDefaultConfigBuilder()
                    .withDockerHost(host)
                    .build();
            ApacheDockerHttpClient http = new ApacheDockerHttpClient.Builder()
                    .dockerHost(config.getDockerHost())
                    .sslConfig(config.getSSLConfig())
                    .maxConnections(64)
                    .connectionTimeout(Duration.ofSeconds(5))
                    .responseTimeout(execTimeout.plusSeconds(30))
                    .build();
            return new DockerContainerRuntime(DockerClientImpl.getInstance(config, http), host, execTimeout, logs);
        } catch (RuntimeException e) {
            throw new ContainerRuntimeException(
                    "Docker host '" + host + "' not usable (" + DockerFailures.rootMessage(e)
                            + "); set DOCKER_HOST to unix:///var/run/docker.sock or tcp://host:port",
                    e);
        }
    }

    /** The daemon address this runtime talks to. */
    public String dockerHost() {
        return dockerHost;
    }

    /** The cap on every container's log this runtime starts. */
    public LogCap logCap() {
        return logs;
    }

    /** For integration tests in this package only: the raw client, to check what the daemon recorded. */
    DockerClient client() {
        return client;
    }

    @Override
    public void ping() {
        try {
            client.pingCmd().exec();
        } catch (RuntimeException e) {
            throw DockerFailures.unreachable(dockerHost, e);
        }
    }

    @Override
    public RuntimeInfo info() {
        try {
            Info info = client.infoCmd().exec();
            Version version = client.versionCmd().exec();
            return new RuntimeInfo(
                    version.getVersion(),
                    version.getApiVersion(),
                    info.getMemTotal() == null ? 0 : info.getMemTotal(),
                    info.getNCPU() == null ? 0 : info.getNCPU());
        } catch (RuntimeException e) {
            throw DockerFailures.unreachable(dockerHost, e);
        }
    }

    @Override
    public boolean hasImage(String image) {
        return inspectImageLabels(image).isPresent();
    }

    @Override
    public Map<String, String> imageLabels(String image) {
        return inspectImageLabels(image).orElse(Map.of());
    }

    /** The image's labels, or empty when the image is absent. */
    private Optional<Map<String, String>> inspectImageLabels(String image) {
        try {
            InspectImageResponse r = client.inspectImageCmd(image).exec();
            Map<String, String> labels = r.getConfig() == null || r.getConfig().getLabels() == null
                    ? Map.of()
                    : r.getConfig().getLabels();
            return Optional.of(Map.copyOf(labels));
        } catch (NotFoundException e) {
            return Optional.empty();
        } catch (RuntimeException e) {
            throw DockerFailures.unreachable(dockerHost, e);
        }
    }

    @Override
    public StartedContainer start(RunRequest request) {
        ContainerSpec spec = request.spec();
        long t0 = System.nanoTime();
        String id = create(request, spec);
        if (request.network() instanceof NetworkMode.Isolated isolated && isolated.owner() != null) {
            joinBeforeStart(request, id, isolated.owner());
        }
        long t1 = System.nanoTime();
        try {
            client.startContainerCmd(id).exec();
        } catch (RuntimeException e) {
            // Docker 20.10 resolves a named network only at start.
            String reason =
                    e instanceof DockerException de ? DockerFailures.daemonMessage(de) : DockerFailures.rootMessage(e);
            removeQuietly(id);
            String network = networkOf(request);
            if (e instanceof NotFoundException && network != null) {
                throw networkMissing(network, reason + "; container removed", e);
            }
            throw new ContainerRuntimeException(
                    "container " + request.name() + " (" + spec.image() + ") was created but did not start: " + reason
                            + "; container removed",
                    e);
        }
        int published = request.network() instanceof NetworkMode.Isolated ? publishedPort(request, id) : 0;
        if (log.isDebugEnabled()) {
            log.debug(
                    "container {} ({}) created in {} ms, started in {} ms",
                    request.name(),
                    spec.image(),
                    (t1 - t0) / 1_000_000,
                    (System.nanoTime() - t1) / 1_000_000);
        }
        return new StartedContainer(id, request.name(), published);
    }

    /** Joins a created container to its owner's network before it starts; on failure it is removed. */
    private void joinBeforeStart(RunRequest request, String id, String network) {
        try {
            networks.connect(network, id);
        } catch (RuntimeException e) {
            removeQuietly(id);
            if (networks.inspect(network).isEmpty()) {
                throw networkMissing(network, "container removed", e);
            }
            throw new ContainerRuntimeException(
                    "container " + request.name() + " could not join network " + network + ": " + e.getMessage()
                            + "; container removed",
                    e);
        }
    }

    /** The host port Docker picked on 127.0.0.1 for the container's service port; on failure the container is removed. */
    private int publishedPort(RunRequest request, String id) {
        ExposedPort exposed = ExposedPort.tcp(request.spec().port());
        try {
            Ports ports =
                    client.inspectContainerCmd(id).exec().getNetworkSettings().getPorts();
            Ports.Binding[] bindings =
                    ports == null ? null : ports.getBindings().get(exposed);
            if (bindings != null) {
                for (Ports.Binding binding : bindings) {
                    if (binding.getHostPortSpec() != null
                            && !binding.getHostPortSpec().isBlank()) {
                        return Integer.parseInt(binding.getHostPortSpec());
                    }
                }
            }
            throw new ContainerRuntimeException("Docker published no host port for " + exposed);
        } catch (RuntimeException e) {
            removeQuietly(id);
            throw new ContainerRuntimeException(
                    "container " + request.name() + " started but its published port could not be read ("
                            + DockerFailures.rootMessage(e) + "); container removed",
                    e);
        }
    }

    private String create(RunRequest request, ContainerSpec spec) {
        List<String> env = new ArrayList<>(spec.env().size());
        spec.env().forEach((k, v) -> env.add(k + "=" + v));
        CreateContainerCmd cmd = client.createContainerCmd(spec.image())
                .withName(request.name())
                .withEnv(env)
                .withLabels(request.labels())
                .withHostConfig(SandboxHostConfig.of(request, logs));
        if (request.network() instanceof NetworkMode.Isolated) {
            cmd.withExposedPorts(ExposedPort.tcp(spec.port()));
        }
        if (!spec.command().isEmpty()) {
            cmd.withCmd(spec.command());
        }
        try {
            return cmd.exec().getId();
        } catch (NotFoundException e) {
            String message = DockerFailures.daemonMessage(e);
            String network = networkOf(request);
            if (network != null && message.toLowerCase(Locale.ROOT).contains("network")) {
                throw networkMissing(network, message, e);
            }
            throw DockerFailures.imageMissing(spec.image(), e);
        } catch (ConflictException e) {
            throw new ContainerRuntimeException(
                    "cannot create container " + request.name() + ": " + DockerFailures.daemonMessage(e)
                            + "; remove the old container or choose another name",
                    e);
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "creating container " + request.name() + " from " + spec.image(), e);
        }
    }

    /** The network the container is created on, or null in host mode. */
    private static String networkOf(RunRequest request) {
        if (request.network() instanceof NetworkMode.Named named) {
            return named.network();
        }
        if (request.network() instanceof NetworkMode.Isolated isolated) {
            return isolated.back();
        }
        return null;
    }

    private static ContainerRuntimeException networkMissing(String network, String detail, RuntimeException cause) {
        return new ContainerRuntimeException(
                "Docker network '" + network + "' does not exist (" + detail + "); create it (docker network create "
                        + network + ") or configure network mode 'host'",
                cause);
    }

    @Override
    public boolean mountsVolumes() {
        return true;
    }

    @Override
    public void createVolume(String name, Map<String, String> labels) {
        try {
            client.createVolumeCmd().withName(name).withLabels(labels).exec();
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "making volume " + name, e);
        }
    }

    @Override
    public void removeVolume(String name) {
        try {
            client.removeVolumeCmd(name).exec();
        } catch (NotFoundException e) {
            // already gone
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "removing volume " + name, e);
        }
    }

    @Override
    public List<String> volumes(Map<String, String> labels) {
        try {
            List<String> filters = new ArrayList<>();
            labels.forEach((k, v) -> filters.add(v == null ? k : k + "=" + v));
            var found =
                    client.listVolumesCmd().withFilter("label", filters).exec().getVolumes();
            return found == null
                    ? List.of()
                    : found.stream().map(InspectVolumeResponse::getName).toList();
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "listing volumes", e);
        }
    }

    @Override
    public NetworkState ensureNetwork(NetworkSpec spec) {
        return networks.ensure(spec);
    }

    @Override
    public Optional<NetworkState> inspectNetwork(String name) {
        return networks.inspect(name);
    }

    @Override
    public List<NetworkState> networks(Map<String, String> labels) {
        return networks.list(labels);
    }

    @Override
    public void connect(String network, String container) {
        networks.connect(network, container);
    }

    @Override
    public void disconnect(String network, String container) {
        networks.disconnect(network, container);
    }

    @Override
    public void removeNetwork(String name) {
        networks.remove(name);
    }

    @Override
    public ExecResult exec(String containerId, List<String> command, Map<String, String> env) {
        return run(containerId, null, command, env, null, new FrameCollector());
    }

    @Override
    public ExecResult exec(
            String containerId, List<String> command, Map<String, String> env, InputStream stdin, OutputStream stdout) {
        return execAs(containerId, null, command, env, stdin, stdout);
    }

    /**
     * With {@code stdin} attached and stdout streamed to {@code stdout}. docker-java's transport cannot half-close the
     * hijacked connection, so the daemon never passes an end of input on: the input is spooled to a temporary file to
     * learn its length, and the command runs behind {@code head -c <length>}, which ends its input there.
     */
    @Override
    public ExecResult execAs(
            String containerId,
            String user,
            List<String> command,
            Map<String, String> env,
            InputStream stdin,
            OutputStream stdout) {
        if (stdin == null) {
            return run(containerId, user, command, env, null, new FrameCollector(stdout));
        }
        if (stdin instanceof KnownLengthInput known) { // a file of known length: no spool needed to learn it
            try (known) {
                Path socket = unixSocket();
                return socket != null
                        ? runOnSocket(socket, containerId, user, command, env, known, stdout)
                        : run(
                                containerId,
                                user,
                                bounded(known.length(), command),
                                env,
                                known,
                                new FrameCollector(stdout));
            } catch (IOException e) {
                throw new ContainerRuntimeException(
                        "exec " + command + " in container " + containerId + ": its input could not be read or closed ("
                                + e.getMessage() + ")",
                        e);
            }
        }
        Path spool = null;
        try {
            spool = Files.createTempFile("roboco-exec-stdin", ".spool");
            long length;
            try (stdin;
                    OutputStream file = Files.newOutputStream(spool)) {
                length = stdin.transferTo(file);
            }
            try (InputStream input = Files.newInputStream(spool)) {
                return run(containerId, user, bounded(length, command), env, input, new FrameCollector(stdout));
            }
        } catch (IOException e) {
            throw new ContainerRuntimeException(
                    "exec " + command + " in container " + containerId + ": its input could not be spooled ("
                            + e.getMessage() + "); check the temporary directory's free space",
                    e);
        } finally {
            if (spool != null) {
                try {
                    Files.deleteIfExists(spool);
                } catch (IOException e) {
                    log.debug("could not delete {}: {}", spool, e.getMessage());
                }
            }
        }
    }

    /** The daemon's Unix socket, when it is reached through one; null otherwise (tcp). */
    private Path unixSocket() {
        String host = dockerHost == null ? "" : dockerHost;
        return host.startsWith("unix://") ? Path.of(URI.create(host).getPath()) : null;
    }

    /**
     * A large input of known length fed on the daemon's socket directly ({@link SocketExecInput}: 256 KB writes and a
     * half-close that ends the command's input, where docker-java writes 1 KB at a time), stdout streamed to
     * {@code stdout}; the exec is created and its exit code read through docker-java.
     */
    private ExecResult runOnSocket(
            Path socket,
            String containerId,
            String user,
            List<String> command,
            Map<String, String> env,
            InputStream stdin,
            OutputStream stdout) {
        String what = "exec " + command + " in container " + containerId + (user == null ? "" : " as " + user);
        try {
            List<String> envList = new ArrayList<>();
            env.forEach((k, v) -> envList.add(k + "=" + v));
            var create = client.execCreateCmd(containerId)
                    .withCmd(command.toArray(String[]::new))
                    .withEnv(envList)
                    .withAttachStdin(true)
                    .withAttachStdout(true)
                    .withAttachStderr(true);
            String execId =
                    (user == null ? create : create.withUser(user)).exec().getId();
            String stderr = SocketExecInput.run(socket, execId, stdin, stdout, execTimeout);
            for (int i = 0;
                    ;
                    i++) { // the stream ends as the command exits; the daemon may record its code a moment later
                Long exitCode = client.inspectExecCmd(execId).exec().getExitCodeLong();
                if (exitCode != null) {
                    return new ExecResult(exitCode.intValue(), "", stderr);
                }
                if (i == 100) {
                    throw new ContainerRuntimeException(what + " finished but Docker reported no exit code");
                }
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ContainerRuntimeException(what + " interrupted", e);
        } catch (TimeoutException e) {
            throw new ContainerRuntimeException(what + " did not finish within " + execTimeout.toSeconds() + " s", e);
        } catch (IOException e) {
            throw new ContainerRuntimeException(
                    what + " failed on the daemon's socket " + socket + ": " + e.getMessage(), e);
        } catch (NotFoundException | ConflictException e) {
            throw new ContainerRuntimeException(what + " failed: " + DockerFailures.daemonMessage(e), e);
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, what, e);
        }
    }

    /** {@code command} behind {@code head -c length}, which ends its input there. */
    private static List<String> bounded(long length, List<String> command) {
        List<String> bounded = new ArrayList<>(List.of("sh", "-c", "head -c " + length + " | \"$@\"", "sh"));
        bounded.addAll(command);
        return bounded;
    }

    private ExecResult run(
            String containerId,
            String user,
            List<String> command,
            Map<String, String> env,
            InputStream stdin,
            FrameCollector output) {
        String what = "exec " + command + " in container " + containerId + (user == null ? "" : " as " + user);
        String execId;
        try {
            List<String> envList = new ArrayList<>();
            env.forEach((k, v) -> envList.add(k + "=" + v));
            var create = client.execCreateCmd(containerId)
                    .withCmd(command.toArray(String[]::new))
                    .withEnv(envList)
                    .withAttachStdin(stdin != null)
                    .withAttachStdout(true)
                    .withAttachStderr(true);
            execId = (user == null ? create : create.withUser(user)).exec().getId();
            var start = client.execStartCmd(execId);
            if (stdin != null) {
                start = start.withStdIn(stdin);
            }
            start.exec(output);
            if (!output.awaitCompletion(execTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                closeQuietly(output);
                throw new ContainerRuntimeException(what + " did not finish within " + execTimeout.toSeconds()
                        + " s; output so far: " + output.combined().strip());
            }
            output.throwIfFailed();
            Long exitCode = client.inspectExecCmd(execId).exec().getExitCodeLong();
            if (exitCode == null) {
                throw new ContainerRuntimeException(what + " finished but Docker reported no exit code");
            }
            return new ExecResult(exitCode.intValue(), output.stdout(), output.stderr());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(output);
            throw new ContainerRuntimeException(what + " interrupted", e);
        } catch (NotFoundException | ConflictException e) {
            throw new ContainerRuntimeException(what + " failed: " + DockerFailures.daemonMessage(e), e);
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, what, e);
        }
    }

    @Override
    public Optional<ContainerState> inspect(String containerId) {
        try {
            return Optional.of(DockerStateMapper.fromInspect(
                    client.inspectContainerCmd(containerId).exec()));
        } catch (NotFoundException e) {
            return Optional.empty();
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "inspecting container " + containerId, e);
        }
    }

    @Override
    public String logTail(String containerId, int lines) {
        FrameCollector output = new FrameCollector();
        try {
            client.logContainerCmd(containerId)
                    .withStdOut(true)
                    .withStdErr(true)
                    .withTail(lines)
                    .exec(output);
            if (!output.awaitCompletion(LOG_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                closeQuietly(output);
            }
            output.throwIfFailed();
            return output.combined();
        } catch (NotFoundException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return output.combined();
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "reading logs of container " + containerId, e);
        }
    }

    @Override
    public void remove(String containerId) {
        try {
            client.removeContainerCmd(containerId)
                    .withForce(true)
                    .withRemoveVolumes(true)
                    .exec();
        } catch (NotFoundException e) {
            // already gone
        } catch (ConflictException e) {
            if (!DockerFailures.daemonMessage(e).contains("already in progress")) {
                throw DockerFailures.of(dockerHost, "removing container " + containerId, e);
            }
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "removing container " + containerId, e);
        }
    }

    @Override
    public List<ContainerState> list(Map<String, String> labels) {
        List<String> filter = new ArrayList<>();
        labels.forEach((k, v) -> filter.add(v == null ? k : k + "=" + v));
        try {
            var cmd = client.listContainersCmd().withShowAll(true);
            if (!filter.isEmpty()) {
                cmd.withFilter("label", filter);
            }
            return cmd.exec().stream().map(DockerStateMapper::fromListing).toList();
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "listing containers labelled " + labels, e);
        }
    }

    @Override
    public void close() {
        try {
            client.close();
        } catch (IOException e) {
            log.debug("closing the Docker client failed", e);
        }
    }

    /** Removes a container whose start failed; an interrupt (a shutdown's) is held back meanwhile, so the removal is still sent. */
    private void removeQuietly(String id) {
        boolean interrupted = Thread.interrupted();
        try {
            remove(id);
        } catch (RuntimeException e) {
            log.warn("could not remove container {} after a failed start: {}", id, e.getMessage());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void closeQuietly(FrameCollector collector) {
        try {
            collector.close();
        } catch (IOException ignored) {
            // the stream is abandoned either way
        }
    }
}
