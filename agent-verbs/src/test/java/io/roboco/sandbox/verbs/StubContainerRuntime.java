package io.roboco.sandbox.verbs;

import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** An in-memory container runtime: containers are map entries. Can be told to fail starts or removals. */
public final class StubContainerRuntime implements ContainerRuntime {
    private final Map<String, ContainerState> containers = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    public final AtomicInteger starts = new AtomicInteger();
    public volatile String failStartsWith;
    public volatile RuntimeException failRemovalsWith;

    @Override
    public void ping() {
    }

    @Override
    public StartedContainer start(RunRequest request) {
        if (failStartsWith != null) {
            throw new ContainerRuntimeException(failStartsWith);
        }
        starts.incrementAndGet();
        String id = "c" + ids.incrementAndGet();
        containers.put(id, new ContainerState(id, request.name(), request.spec().image(), true, "running", null, false,
                request.labels(), System.currentTimeMillis() / 1000));
        return new StartedContainer(id, request.name());
    }

    @Override
    public ExecResult exec(String containerId, List<String> command, Map<String, String> env) {
        return new ExecResult(0, "", "");
    }

    @Override
    public Optional<ContainerState> inspect(String containerId) {
        return Optional.ofNullable(containers.get(containerId));
    }

    @Override
    public String logTail(String containerId, int lines) {
        return "";
    }

    @Override
    public void remove(String containerId) {
        if (failRemovalsWith != null) {
            throw failRemovalsWith;
        }
        containers.remove(containerId);
    }

    @Override
    public List<ContainerState> list(Map<String, String> labels) {
        return containers.values().stream()
                .filter(c -> labels.entrySet().stream().allMatch(l -> l.getValue() == null
                        ? c.labels().containsKey(l.getKey()) : l.getValue().equals(c.labels().get(l.getKey()))))
                .toList();
    }

    public int running() {
        return containers.size();
    }
}
