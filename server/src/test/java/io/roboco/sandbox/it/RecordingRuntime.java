package io.roboco.sandbox.it;

import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.NetworkSpec;
import io.roboco.sandbox.runtime.NetworkState;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.RuntimeInfo;
import io.roboco.sandbox.runtime.StartedContainer;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Wraps the real runtime and records what the server asks of it: how many calls (the janitor's own
 * thread apart), which container serves which host port, and when each removal began. A test can
 * {@linkplain #parkNextStart park} the next matching start or {@linkplain #parkNextRemove removal} at a
 * {@link Gate}, to act while the server is known to be inside that call.
 */
public final class RecordingRuntime implements ContainerRuntime {
    private static final String JANITOR_THREAD = "roboco-sandbox-janitor";
    private final ContainerRuntime delegate;
    private final AtomicLong calls = new AtomicLong();
    private final Map<Integer, String> containerByPort = new ConcurrentHashMap<>();
    private final Map<String, Long> removalStartedNanos = new ConcurrentHashMap<>();
    private final Map<String, String> nameById = new ConcurrentHashMap<>();
    private final List<Armed<RunRequest>> startGates = new CopyOnWriteArrayList<>();
    private final List<Armed<String>> removeGates = new CopyOnWriteArrayList<>();
    private final List<Consumer<RunRequest>> beforeStart = new CopyOnWriteArrayList<>();
    private final List<Armed<Long>> stdinGates = new CopyOnWriteArrayList<>();

    /** A gate waiting for the first call that matches. */
    private record Armed<T>(Predicate<T> matches, Gate gate) {}

    public RecordingRuntime(ContainerRuntime delegate) {
        this.delegate = delegate;
    }

    /** Runtime calls made outside the janitor's thread so far. */
    public long calls() {
        return calls.get();
    }

    /** The container that was last started on this host port. */
    public String containerOnPort(int port) {
        return containerByPort.get(port);
    }

    /** The name of a container this runtime started, or null. */
    public String nameOf(String containerId) {
        return nameById.get(containerId);
    }

    /**
     * Runs {@code hook} at every start from now on, before the start reaches the daemon (another process acting in
     * the gap between the server's choice of a port and the container's bind of it).
     */
    public void beforeEveryStart(Consumer<RunRequest> hook) {
        beforeStart.add(hook);
    }

    /** The next start matching {@code which} parks (before it reaches the daemon) until the returned gate opens. */
    public Gate parkNextStart(String what, Predicate<RunRequest> which) {
        Gate gate = new Gate(what);
        startGates.add(new Armed<>(which, gate));
        return gate;
    }

    /**
     * The next removal of a container matching {@code which} parks until the returned gate opens; its removal
     * counts as begun ({@link #removalStarted}) from the moment it parks.
     */
    public Gate parkNextRemove(String what, Predicate<String> which) {
        Gate gate = new Gate(what);
        removeGates.add(new Armed<>(which, gate));
        return gate;
    }

    /**
     * The next exec fed a stdin (a template's restore) parks once it has read {@code afterBytes} of it, until the
     * returned gate opens: the test acts while the restore is known to be half done.
     */
    public Gate parkNextStdinAfter(String what, long afterBytes) {
        Gate gate = new Gate(what);
        stdinGates.add(new Armed<>(read -> read >= afterBytes, gate));
        return gate;
    }

    private InputStream watched(InputStream stdin) {
        if (stdin == null || stdinGates.isEmpty()) {
            return stdin;
        }
        Armed<Long> armed = stdinGates.remove(0);
        return new FilterInputStream(stdin) {
            private long read;
            private boolean parked;

            @Override
            public int read() throws IOException {
                int b = super.read();
                count(b < 0 ? 0 : 1);
                return b;
            }

            @Override
            public int read(byte[] buf, int off, int len) throws IOException {
                int n = super.read(buf, off, len);
                count(Math.max(n, 0));
                return n;
            }

            private void count(int n) {
                read += n;
                if (!parked && armed.matches().test(read)) {
                    parked = true;
                    armed.gate().park();
                }
            }
        };
    }

    /** When the server began removing this container (System.nanoTime), or null if it never did. */
    public Long removalStarted(String containerId) {
        return removalStartedNanos.get(containerId);
    }

    private void count() {
        if (!Thread.currentThread().getName().startsWith(JANITOR_THREAD)) {
            calls.incrementAndGet();
        }
    }

    @Override
    public void ping() {
        count();
        delegate.ping();
    }

    @Override
    public StartedContainer start(RunRequest request) {
        count();
        parkIfArmed(startGates, request);
        beforeStart.forEach(hook -> hook.accept(request));
        StartedContainer started = delegate.start(request);
        containerByPort.put(request.spec().port(), started.id());
        nameById.put(started.id(), started.name());
        return started;
    }

    @Override
    public ExecResult exec(String containerId, List<String> command, Map<String, String> env) {
        count();
        return delegate.exec(containerId, command, env);
    }

    @Override
    public ExecResult exec(
            String containerId, List<String> command, Map<String, String> env, InputStream stdin, OutputStream stdout) {
        count();
        return delegate.exec(containerId, command, env, watched(stdin), stdout);
    }

    @Override
    public ExecResult execAs(
            String containerId,
            String user,
            List<String> command,
            Map<String, String> env,
            InputStream stdin,
            OutputStream stdout) {
        count();
        return delegate.execAs(containerId, user, command, env, watched(stdin), stdout);
    }

    @Override
    public Optional<ContainerState> inspect(String containerId) {
        count();
        return delegate.inspect(containerId);
    }

    @Override
    public boolean isRunning(String containerId) {
        count();
        return delegate.isRunning(containerId);
    }

    @Override
    public String logTail(String containerId, int lines) {
        count();
        return delegate.logTail(containerId, lines);
    }

    @Override
    public void remove(String containerId) {
        count();
        removalStartedNanos.putIfAbsent(containerId, System.nanoTime());
        parkIfArmed(removeGates, containerId);
        delegate.remove(containerId);
    }

    @Override
    public List<ContainerState> list(Map<String, String> labels) {
        count();
        return delegate.list(labels);
    }

    @Override
    public RuntimeInfo info() {
        return delegate.info();
    }

    @Override
    public boolean hasImage(String image) {
        return delegate.hasImage(image);
    }

    @Override
    public Map<String, String> imageLabels(String image) {
        return delegate.imageLabels(image);
    }

    @Override
    public NetworkState ensureNetwork(NetworkSpec spec) {
        return delegate.ensureNetwork(spec);
    }

    @Override
    public Optional<NetworkState> inspectNetwork(String name) {
        return delegate.inspectNetwork(name);
    }

    @Override
    public List<NetworkState> networks(Map<String, String> labels) {
        return delegate.networks(labels);
    }

    @Override
    public void connect(String network, String container) {
        delegate.connect(network, container);
    }

    @Override
    public void disconnect(String network, String container) {
        delegate.disconnect(network, container);
    }

    @Override
    public void removeNetwork(String name) {
        delegate.removeNetwork(name);
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** Parks on the first armed gate that matches {@code call} (each gate takes one call). */
    private static <T> void parkIfArmed(List<Armed<T>> armed, T call) {
        for (Armed<T> a : armed) {
            if (a.matches().test(call) && armed.remove(a)) {
                a.gate().park();
                return;
            }
        }
    }
}
