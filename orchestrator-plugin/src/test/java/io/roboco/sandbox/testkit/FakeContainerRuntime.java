package io.roboco.sandbox.testkit;

import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.NetworkSpec;
import io.roboco.sandbox.runtime.NetworkState;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The container-runtime fake: an in-memory {@link ContainerRuntime} for unit tests. Passes
 * {@link ContainerRuntimeContract}, as {@code DockerContainerRuntime} does. Thread-safe.
 *
 * <p>Scriptable: exec results ({@link #onExec}), images that exit at once ({@link #exitOnStart}), missing
 * images ({@link #markImageMissing}), an unreachable daemon ({@link #setDaemonReachable}), failing starts
 * ({@link #failStarts}) or removals ({@link #failRemovals}), start latency, container death ({@link #kill},
 * {@link #oomKill}). Networks as Docker keeps them: a {@code NetworkMode.Isolated} start joins both networks (which must
 * exist) and gets a published port; a network with a container attached is not removed. Counts every call for assertions such as "a cache hit made no runtime call besides the
 * liveness check".
 */
public final class FakeContainerRuntime implements ContainerRuntime {
    /** A recorded exec call; {@code user} is who it ran as inside the container (null: the image's user). */
    public record ExecCall(
            String containerId, List<String> command, Map<String, String> env, String stdin, String user) {
        /** A call without stdin. */
        public ExecCall(String containerId, List<String> command, Map<String, String> env) {
            this(containerId, command, env, null, null);
        }

        /** A call as the image's user. */
        public ExecCall(String containerId, List<String> command, Map<String, String> env, String stdin) {
            this(containerId, command, env, stdin, null);
        }
    }

    private record ExecScript(Predicate<ExecCall> matches, Function<ExecCall, ExecResult> result) {}

    private static final class FakeContainer {
        final String id;
        final RunRequest request;
        final long created;
        final StringBuilder logs = new StringBuilder();
        volatile boolean running = true;
        volatile Integer exitCode;
        volatile boolean oomKilled;
        volatile int publishedPort;

        FakeContainer(String id, RunRequest request, long created) {
            this.id = id;
            this.request = request;
            this.created = created;
        }

        synchronized ContainerState state(Set<String> networks) {
            return new ContainerState(
                    id,
                    request.name(),
                    request.spec().image(),
                    running,
                    running ? "running" : "exited",
                    running ? null : exitCode,
                    oomKilled,
                    request.labels(),
                    created,
                    networks);
        }
    }

    private final Map<String, FakeContainer> containers = new ConcurrentHashMap<>();
    private final Set<String> missingImages = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> exitOnStart = new ConcurrentHashMap<>();
    private final List<ExecScript> execScripts = new CopyOnWriteArrayList<>();
    private final List<ExecCall> execCalls = new CopyOnWriteArrayList<>();
    private final Clock clock;
    private volatile Duration startLatency = Duration.ZERO;
    private volatile boolean daemonReachable = true;
    private volatile String startFailure;
    private volatile RuntimeException removalFailure;
    private volatile Consumer<RunRequest> onStart = request -> {};

    private final AtomicInteger pings = new AtomicInteger();
    private final AtomicInteger starts = new AtomicInteger();
    private final AtomicInteger execs = new AtomicInteger();
    private final AtomicInteger inspects = new AtomicInteger();
    private final AtomicInteger logTails = new AtomicInteger();
    private final AtomicInteger removes = new AtomicInteger();
    private final AtomicInteger lists = new AtomicInteger();
    private final AtomicInteger networkCalls = new AtomicInteger();
    private final AtomicInteger publishedPorts = new AtomicInteger();
    private final Map<String, FakeNetwork> networks = new ConcurrentHashMap<>();

    public FakeContainerRuntime() {
        this(Clock.systemUTC());
    }

    public FakeContainerRuntime(Clock clock) {
        this.clock = clock;
    }

    // ---- scripting -------------------------------------------------------------------------------

    /**
     * {@code hook} is told of every start, on the thread that asks for it, before anything else happens (a test that
     * looks at the way a request took to the container create).
     */
    public FakeContainerRuntime onStart(Consumer<RunRequest> hook) {
        this.onStart = hook;
        return this;
    }

    /** Starting from this image fails as Docker does when the image is not local. */
    public FakeContainerRuntime markImageMissing(String image) {
        missingImages.add(image);
        return this;
    }

    public FakeContainerRuntime markImagePresent(String image) {
        missingImages.remove(image);
        return this;
    }

    /** Containers from this image start, then their process exits at once with {@code exitCode}. */
    public FakeContainerRuntime exitOnStart(String image, int exitCode) {
        exitOnStart.put(image, exitCode);
        return this;
    }

    /** Every call after this throws the "daemon not reachable" fault (or stops doing so). */
    public FakeContainerRuntime setDaemonReachable(boolean reachable) {
        this.daemonReachable = reachable;
        return this;
    }

    /** Every {@link #start} fails with this message (as a daemon-side start fault does); null to stop. */
    public FakeContainerRuntime failStarts(String message) {
        this.startFailure = message;
        return this;
    }

    /** Every {@link #remove} throws {@code failure} and leaves the container in place; null to stop. */
    public FakeContainerRuntime failRemovals(RuntimeException failure) {
        this.removalFailure = failure;
        return this;
    }

    /** Each successful {@link #start} sleeps this long first (a real start takes ~0.1–0.4 s). */
    public FakeContainerRuntime setStartLatency(Duration latency) {
        this.startLatency = Objects.requireNonNull(latency);
        return this;
    }

    /** Execs matching {@code matches} answer {@code result}; later scripts win. Unscripted execs answer exit 0, no output. */
    public FakeContainerRuntime onExec(Predicate<ExecCall> matches, Function<ExecCall, ExecResult> result) {
        execScripts.add(0, new ExecScript(matches, result));
        return this;
    }

    /** Execs whose command equals {@code command} answer {@code result}. */
    public FakeContainerRuntime onExec(List<String> command, ExecResult result) {
        return onExec(call -> call.command().equals(command), call -> result);
    }

    /** Simulates the container's process dying with {@code exitCode} (it stays listed, as in Docker). */
    public void kill(String containerId, int exitCode) {
        FakeContainer c = require(containerId);
        synchronized (c) {
            c.running = false;
            c.exitCode = exitCode;
        }
    }

    /** The container died; exit code 137 as after SIGKILL. */
    public void kill(String containerId) {
        kill(containerId, 137);
    }

    public void oomKill(String containerId) {
        FakeContainer c = require(containerId);
        synchronized (c) {
            c.running = false;
            c.exitCode = 137;
            c.oomKilled = true;
        }
    }

    /** Appends a line to the container's log (what {@link #logTail} returns). */
    public void log(String containerId, String line) {
        FakeContainer c = require(containerId);
        synchronized (c) {
            c.logs.append(line).append('\n');
        }
    }

    // ---- observation -----------------------------------------------------------------------------

    public int pingCount() {
        return pings.get();
    }

    public int startCount() {
        return starts.get();
    }

    public int execCount() {
        return execs.get();
    }

    public int inspectCount() {
        return inspects.get();
    }

    public int logTailCount() {
        return logTails.get();
    }

    public int removeCount() {
        return removes.get();
    }

    /** Calls about networks (make, inspect, list, attach, detach, remove). */
    public int networkCallCount() {
        return networkCalls.get();
    }

    public int listCount() {
        return lists.get();
    }

    /** All calls of any kind. */
    public int callCount() {
        return pings.get()
                + starts.get()
                + execs.get()
                + inspects.get()
                + logTails.get()
                + removes.get()
                + lists.get()
                + networkCalls.get();
    }

    public void resetCounts() {
        for (AtomicInteger counter : List.of(pings, starts, execs, inspects, logTails, removes, lists, networkCalls)) {
            counter.set(0);
        }
        execCalls.clear();
    }

    public List<ExecCall> execCalls() {
        return List.copyOf(execCalls);
    }

    /** The request a live (existing) container was started with. */
    public Optional<RunRequest> request(String containerId) {
        return Optional.ofNullable(containers.get(containerId)).map(c -> c.request);
    }

    /** Ids of existing containers, running or not. */
    public Set<String> containerIds() {
        return Set.copyOf(containers.keySet());
    }

    public long runningCount() {
        return containers.values().stream().filter(c -> c.running).count();
    }

    // ---- ContainerRuntime ------------------------------------------------------------------------

    @Override
    public void ping() {
        pings.incrementAndGet();
        checkReachable();
    }

    @Override
    public StartedContainer start(RunRequest request) {
        if (!request.volumes().isEmpty()) {
            throw new ContainerRuntimeException("the fake runtime mounts no volume (" + request.volumes() + ")");
        }
        onStart.accept(request);
        starts.incrementAndGet();
        checkReachable();
        String image = request.spec().image();
        if (startFailure != null) {
            throw new ContainerRuntimeException(startFailure);
        }
        if (missingImages.contains(image)) {
            throw new ContainerRuntimeException(
                    "image " + image + " is not present on the Docker host and is never pulled"
                            + " (no registry is reachable); run ./scripts/build-images.sh or configure the engine's image");
        }
        sleep(startLatency);
        String id = HexFormat.of().formatHex(randomBytes());
        FakeContainer container = new FakeContainer(id, request, clock.instant().getEpochSecond());
        container
                .logs
                .append("fake container ")
                .append(request.name())
                .append(" started from ")
                .append(image)
                .append('\n');
        Integer exit = exitOnStart.get(image);
        if (exit != null) {
            container.running = false;
            container.exitCode = exit;
        }
        List<FakeNetwork> joined = new ArrayList<>();
        if (request.network() instanceof NetworkMode.Isolated isolated) {
            joined.add(requireNetwork(isolated.back()));
            if (isolated.owner() != null) {
                joined.add(requireNetwork(isolated.owner()));
            }
            container.publishedPort = 30000 + publishedPorts.incrementAndGet();
        }
        synchronized (containers) {
            boolean taken =
                    containers.values().stream().anyMatch(c -> c.request.name().equals(request.name()));
            if (taken) {
                throw new ContainerRuntimeException("cannot create container " + request.name()
                        + ": the name is already in use; remove the old container or choose another name");
            }
            containers.put(id, container);
        }
        joined.forEach(n -> n.containers().add(id));
        return new StartedContainer(id, request.name(), container.publishedPort);
    }

    @Override
    public ExecResult exec(String containerId, List<String> command, Map<String, String> env) {
        return answer(new ExecCall(containerId, List.copyOf(command), Map.copyOf(env)));
    }

    /** Records {@code stdin} (read to its end, UTF-8) on the call; the scripted stdout is written to {@code stdout}. */
    @Override
    public ExecResult exec(
            String containerId, List<String> command, Map<String, String> env, InputStream stdin, OutputStream stdout) {
        return execAs(containerId, null, command, env, stdin, stdout);
    }

    /** Records {@code user} on the call too. */
    @Override
    public ExecResult execAs(
            String containerId,
            String user,
            List<String> command,
            Map<String, String> env,
            InputStream stdin,
            OutputStream stdout) {
        String input = null;
        if (stdin != null) {
            try (stdin) {
                input = new String(stdin.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new ContainerRuntimeException(
                        "exec " + command + ": stdin could not be read: " + e.getMessage(), e);
            }
        }
        ExecResult result = answer(new ExecCall(containerId, List.copyOf(command), Map.copyOf(env), input, user));
        try {
            stdout.write(result.stdout().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new ContainerRuntimeException(
                    "exec " + command + ": its output could not be written: " + e.getMessage(), e);
        }
        return new ExecResult(result.exitCode(), "", result.stderr());
    }

    private ExecResult answer(ExecCall call) {
        String containerId = call.containerId();
        List<String> command = call.command();
        execs.incrementAndGet();
        checkReachable();
        execCalls.add(call);
        FakeContainer c = containers.get(containerId);
        if (c == null) {
            throw new ContainerRuntimeException(
                    "exec " + command + " in container " + containerId + " failed: No such container: " + containerId);
        }
        if (!c.running) {
            throw new ContainerRuntimeException("exec " + command + " in container " + containerId
                    + " failed: container " + containerId + " is not running");
        }
        return execScripts.stream()
                .filter(s -> s.matches().test(call))
                .findFirst()
                .map(s -> s.result().apply(call))
                .orElse(new ExecResult(0, "", ""));
    }

    @Override
    public Optional<ContainerState> inspect(String containerId) {
        inspects.incrementAndGet();
        checkReachable();
        // By id or, as Docker also takes, by name.
        return Optional.ofNullable(find(containerId)).map(c -> c.state(networksOf(c.id)));
    }

    @Override
    public String logTail(String containerId, int lines) {
        logTails.incrementAndGet();
        checkReachable();
        FakeContainer c = containers.get(containerId);
        if (c == null) {
            return "";
        }
        String[] all;
        synchronized (c) {
            all = c.logs.toString().split("\n");
        }
        List<String> tail = new ArrayList<>(List.of(all).subList(Math.max(0, all.length - lines), all.length));
        return tail.isEmpty() ? "" : String.join("\n", tail) + "\n";
    }

    @Override
    public void remove(String containerId) {
        removes.incrementAndGet();
        checkReachable();
        RuntimeException failure = removalFailure;
        if (failure != null) {
            throw failure;
        }
        containers.remove(containerId);
        networks.values().forEach(n -> n.containers().remove(containerId));
    }

    @Override
    public List<ContainerState> list(Map<String, String> labels) {
        lists.incrementAndGet();
        checkReachable();
        return containers.values().stream()
                .map(c -> c.state(networksOf(c.id)))
                .filter(s -> labels.entrySet().stream()
                        .allMatch(e -> s.labels().containsKey(e.getKey())
                                && (e.getValue() == null
                                        || e.getValue().equals(s.labels().get(e.getKey())))))
                .toList();
    }

    // ---- networks --------------------------------------------------------------------------------

    private record FakeNetwork(String id, NetworkSpec spec, Set<String> containers) {
        NetworkState state() {
            return new NetworkState(id, spec.name(), spec.labels(), containers);
        }
    }

    @Override
    public NetworkState ensureNetwork(NetworkSpec spec) {
        networkCalls.incrementAndGet();
        checkReachable();
        return networks.computeIfAbsent(
                        spec.name(),
                        n -> new FakeNetwork(
                                HexFormat.of().formatHex(randomBytes()), spec, ConcurrentHashMap.newKeySet()))
                .state();
    }

    @Override
    public Optional<NetworkState> inspectNetwork(String name) {
        networkCalls.incrementAndGet();
        checkReachable();
        return Optional.ofNullable(networks.get(name)).map(FakeNetwork::state);
    }

    @Override
    public List<NetworkState> networks(Map<String, String> labels) {
        networkCalls.incrementAndGet();
        checkReachable();
        return networks.values().stream()
                .filter(n -> labels.entrySet().stream()
                        .allMatch(l -> n.spec.labels().containsKey(l.getKey())
                                && (l.getValue() == null
                                        || l.getValue().equals(n.spec.labels().get(l.getKey())))))
                .map(FakeNetwork::state)
                .toList();
    }

    @Override
    public void connect(String network, String container) {
        networkCalls.incrementAndGet();
        checkReachable();
        requireNetwork(network).containers.add(resolve(container).id);
    }

    @Override
    public void disconnect(String network, String container) {
        networkCalls.incrementAndGet();
        checkReachable();
        FakeNetwork n = networks.get(network);
        FakeContainer c = find(container);
        if (n != null && c != null) {
            n.containers.remove(c.id);
        }
    }

    @Override
    public void removeNetwork(String name) {
        networkCalls.incrementAndGet();
        checkReachable();
        synchronized (networks) {
            FakeNetwork n = networks.get(name);
            if (n == null) {
                return;
            }
            if (!n.containers.isEmpty()) {
                throw new ContainerRuntimeException("cannot remove Docker network " + name
                        + ": error while removing network: network " + name + " has active endpoints");
            }
            networks.remove(name);
        }
    }

    /** How a network was made, for assertions; empty when it does not exist. */
    public Optional<NetworkSpec> networkSpec(String name) {
        return Optional.ofNullable(networks.get(name)).map(FakeNetwork::spec);
    }

    /** The port a network-mode container's service is published on (0: none). */
    public int publishedPort(String containerId) {
        return require(containerId).publishedPort;
    }

    private FakeNetwork requireNetwork(String name) {
        FakeNetwork n = networks.get(name);
        if (n == null) {
            throw new ContainerRuntimeException(
                    "Docker network '" + name + "' does not exist (network " + name + " not found)");
        }
        return n;
    }

    /** A container by id or name, or null. */
    private FakeContainer find(String idOrName) {
        FakeContainer byId = containers.get(idOrName);
        if (byId != null) {
            return byId;
        }
        return containers.values().stream()
                .filter(c -> c.request.name().equals(idOrName))
                .findFirst()
                .orElse(null);
    }

    private FakeContainer resolve(String idOrName) {
        FakeContainer c = find(idOrName);
        if (c == null) {
            throw new ContainerRuntimeException("no such container: " + idOrName);
        }
        return c;
    }

    private Set<String> networksOf(String containerId) {
        Set<String> names = new TreeSet<>();
        networks.values().forEach(n -> {
            if (n.containers.contains(containerId)) {
                names.add(n.spec.name());
            }
        });
        return names;
    }

    private void checkReachable() {
        if (!daemonReachable) {
            throw new ContainerRuntimeException(
                    "Docker daemon at fake://daemon not reachable (switched off by the test);"
                            + " start it (./scripts/test.sh starts one) or set DOCKER_HOST");
        }
    }

    private FakeContainer require(String containerId) {
        FakeContainer c = containers.get(containerId);
        if (c == null) {
            throw new IllegalArgumentException("no fake container " + containerId + "; known: " + containers.keySet());
        }
        return c;
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[32];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }

    private static void sleep(Duration d) {
        if (d.isZero()) {
            return;
        }
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ContainerRuntimeException("start interrupted", e);
        }
    }
}
