package io.roboco.sandbox.it;

import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps the real runtime and records what the server asks of it: how many calls (the janitor's own
 * thread apart), which container serves which host port, and when each removal began.
 */
public final class RecordingRuntime implements ContainerRuntime {
    private static final String JANITOR_THREAD = "roboco-sandbox-janitor";
    private final ContainerRuntime delegate;
    private final AtomicLong calls = new AtomicLong();
    private final Map<Integer, String> containerByPort = new ConcurrentHashMap<>();
    private final Map<String, Long> removalStartedNanos = new ConcurrentHashMap<>();

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
        StartedContainer started = delegate.start(request);
        containerByPort.put(request.spec().port(), started.id());
        return started;
    }

    @Override
    public ExecResult exec(String containerId, List<String> command, Map<String, String> env) {
        count();
        return delegate.exec(containerId, command, env);
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
        delegate.remove(containerId);
    }

    @Override
    public List<ContainerState> list(Map<String, String> labels) {
        count();
        return delegate.list(labels);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
