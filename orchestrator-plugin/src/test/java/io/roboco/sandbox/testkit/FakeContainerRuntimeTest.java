package io.roboco.sandbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class FakeContainerRuntimeTest extends ContainerRuntimeContract {
    private static final String IMAGE = "fake/redis:7";
    private static final String EXITING_IMAGE = "fake/base:exits";
    private static final String MISSING = "fake/missing:0";

    private final FakeContainerRuntime fake =
            new FakeContainerRuntime().markImageMissing(MISSING).exitOnStart(EXITING_IMAGE, 3);

    @Override
    protected ContainerRuntime runtime() {
        return fake;
    }

    @Override
    protected RunRequest longRunningRequest(String name, Map<String, String> labels) {
        return request(name, IMAGE, labels);
    }

    @Override
    protected RunRequest exitingRequest(String name, Map<String, String> labels, int exitCode) {
        fake.exitOnStart(EXITING_IMAGE, exitCode);
        return request(name, EXITING_IMAGE, labels);
    }

    @Override
    protected String missingImage() {
        return MISSING;
    }

    @Override
    protected String expectedLogFragment() {
        return "started from " + IMAGE;
    }

    @Override
    protected void prepareGreeting() {
        fake.onExec(
                call -> call.command().equals(GREETING_COMMAND),
                call -> new ExecResult(7, call.env().get("GREETING") + "\n", "oops\n"));
    }

    @Override
    protected void prepareCat() {
        fake.onExec(call -> call.command().equals(CAT_COMMAND), call -> new ExecResult(0, call.stdin(), "done\n"));
    }

    private static RunRequest request(String name, String image, Map<String, String> labels) {
        return new RunRequest(
                name,
                new ContainerSpec(image, Map.of(), List.of("serve"), "/data", 6379),
                labels,
                Limits.sandboxDefaults(),
                NetworkMode.host(),
                RunRequest.ENTRYPOINT_CAPABILITIES);
    }

    @Test
    void killedContainerReportsDeath() {
        StartedContainer c = fake.start(request(uniqueName("kill"), IMAGE, labels()));
        fake.kill(c.id());
        assertThat(fake.inspect(c.id()).orElseThrow().describe()).isEqualTo("exited with code 137");
        assertThatThrownBy(() -> fake.exec(c.id(), List.of("true"), Map.of())).hasMessageContaining("not running");
        StartedContainer d = fake.start(request(uniqueName("oom"), IMAGE, labels()));
        fake.oomKill(d.id());
        assertThat(fake.inspect(d.id()).orElseThrow().describe()).startsWith("OOM-killed");
    }

    @Test
    void tellsTheStartHookOfEveryStartOnTheCallersThread() {
        List<String> told = new CopyOnWriteArrayList<>();
        fake.onStart(r -> told.add(r.name() + "@" + Thread.currentThread().getName()));
        String name = uniqueName("hook");
        fake.start(request(name, IMAGE, labels()));
        assertThat(told).containsExactly(name + "@" + Thread.currentThread().getName());
    }

    @Test
    void countsEveryKindOfCall() {
        fake.resetCounts();
        StartedContainer c = fake.start(request(uniqueName("count"), IMAGE, labels()));
        fake.isRunning(c.id());
        fake.exec(c.id(), List.of("true"), Map.of("A", "b"));
        fake.list(Map.of());
        fake.remove(c.id());
        assertThat(List.of(
                        fake.startCount(), fake.inspectCount(), fake.execCount(), fake.listCount(), fake.removeCount()))
                .containsExactly(1, 1, 1, 1, 1);
        assertThat(fake.callCount()).isEqualTo(5);
        assertThat(fake.execCalls())
                .singleElement()
                .isEqualTo(new FakeContainerRuntime.ExecCall(c.id(), List.of("true"), Map.of("A", "b")));
    }

    @Test
    void unreachableDaemonFailsEveryCallUntilBack() {
        fake.setDaemonReachable(false);
        assertThatThrownBy(fake::ping).hasMessageContaining("not reachable").hasMessageContaining("DOCKER_HOST");
        assertThatThrownBy(() -> fake.start(request(uniqueName("down"), IMAGE, labels())))
                .isInstanceOf(ContainerRuntimeException.class);
        fake.setDaemonReachable(true);
        fake.ping();
    }

    @Test
    void startLatencyIsApplied() {
        fake.setStartLatency(Duration.ofMillis(100));
        long t0 = System.nanoTime();
        fake.start(request(uniqueName("slow"), IMAGE, labels()));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
        fake.setStartLatency(Duration.ZERO);
    }

    @Test
    void scriptedStartAndRemovalFaultsFailUntilCleared() {
        StartedContainer c = fake.start(request(uniqueName("faults"), IMAGE, labels()));
        fake.failRemovals(new ContainerRuntimeException("daemon went away"));
        assertThatThrownBy(() -> fake.remove(c.id())).hasMessage("daemon went away");
        assertThat(fake.isRunning(c.id()))
                .as("a failed removal leaves the container")
                .isTrue();
        fake.failRemovals(null);
        fake.remove(c.id());
        assertThat(fake.inspect(c.id())).isEmpty();

        fake.failStarts("image stub/x:1 not found locally");
        long before = fake.runningCount();
        assertThatThrownBy(() -> fake.start(request(uniqueName("nostart"), IMAGE, labels())))
                .isInstanceOf(ContainerRuntimeException.class)
                .hasMessage("image stub/x:1 not found locally");
        assertThat(fake.runningCount()).isEqualTo(before);
        fake.failStarts(null);
        fake.remove(fake.start(request(uniqueName("again"), IMAGE, labels())).id());
    }
}
