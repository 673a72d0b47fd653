package io.roboco.sandbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.NetworkSpec;
import io.roboco.sandbox.runtime.NetworkState;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;
import io.roboco.sandbox.runtime.VolumeMount;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What every {@link ContainerRuntime} does: {@link FakeContainerRuntime} and {@code DockerContainerRuntime}
 * both pass it. Subclasses supply the runtime and requests that suit it
 * (the fake scripts its answers; the Docker IT uses local images). Every container made here carries
 * {@value #TEST_LABEL}=runtime and a per-run label, and is removed after the class even on failure;
 * the runtime is closed afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ContainerRuntimeContract {
    public static final String TEST_LABEL = "roboco.sandbox.test";
    public static final String RUN_LABEL = "roboco.sandbox.test.run";
    /** Prints "hello" (from env), "oops" on stderr, exits 7. */
    protected static final List<String> GREETING_COMMAND =
            List.of("sh", "-c", "echo \"$GREETING\"; echo oops >&2; exit 7");

    protected final String runId = UUID.randomUUID().toString().substring(0, 8);

    /** The runtime under test; the same instance on every call. */
    protected abstract ContainerRuntime runtime();

    /** A request for a container that keeps running until removed. */
    protected abstract RunRequest longRunningRequest(String name, Map<String, String> labels);

    /** A request for a container whose process exits at once with {@code exitCode}. */
    protected abstract RunRequest exitingRequest(String name, Map<String, String> labels, int exitCode);

    /** An image the runtime does not have. */
    protected abstract String missingImage();

    /** A fragment the long-running container writes to its log soon after start. */
    protected abstract String expectedLogFragment();

    /** Copies stdin to stdout, then says "done" on stderr. */
    protected static final List<String> CAT_COMMAND = List.of("sh", "-c", "cat; echo done >&2");

    /**
     * Whether the runtime manages networks (Docker's network mode). One that does not (Kubernetes, where the pod's
     * NetworkPolicy is the isolation, proven in its own IT) skips the network tests below, saying so.
     */
    protected boolean managesNetworks() {
        return true;
    }

    private void requireNetworks() {
        assumeTrue(
                managesNetworks(),
                getClass().getSimpleName() + "'s runtime manages no networks (network mode is Docker's)");
    }

    /** Hook: make {@link #CAT_COMMAND} answer what it was fed on stdout and "done\n" on stderr, exit 0. */
    protected void prepareCat() {}

    /** Hook: make {@link #GREETING_COMMAND} with GREETING=hello answer (7, "hello\n", "oops\n"). */
    protected void prepareGreeting() {}

    protected Map<String, String> labels() {
        Map<String, String> labels = new HashMap<>();
        labels.put(TEST_LABEL, "runtime");
        labels.put(RUN_LABEL, runId);
        labels.put("roboco.sandbox", "1");
        return labels;
    }

    protected String uniqueName(String what) {
        return "roboco-test-" + what + "-" + runId + "-"
                + UUID.randomUUID().toString().substring(0, 6);
    }

    @AfterAll
    void removeEveryTestContainer() {
        try {
            for (ContainerState s : runtime().list(Map.of(RUN_LABEL, runId))) {
                runtime().remove(s.id());
            }
            for (NetworkState n :
                    managesNetworks() ? runtime().networks(Map.of(RUN_LABEL, runId)) : List.<NetworkState>of()) {
                n.containers().forEach(c -> runtime().disconnect(n.name(), c));
                runtime().removeNetwork(n.name());
            }
        } catch (ContainerRuntimeException e) {
            // the daemon is gone: nothing left to remove, and the test failure already says why
        } finally {
            runtime().close();
        }
    }

    @Test
    void startedContainerLivesUntilRemoved() {
        Map<String, String> labels = labels();
        labels.put("roboco.sandbox.instance", "life-" + runId);
        RunRequest request = longRunningRequest(uniqueName("life"), labels);
        StartedContainer started = runtime().start(request);
        assertThat(started.name()).isEqualTo(request.name());

        ContainerState state = runtime().inspect(started.id()).orElseThrow();
        assertThat(state.running()).isTrue();
        assertThat(state.exitCode()).isNull();
        assertThat(state.id()).isEqualTo(started.id());
        assertThat(state.name()).isEqualTo(request.name());
        assertThat(state.labels()).containsAllEntriesOf(labels);
        assertThat(state.createdEpochSeconds()).isCloseTo(System.currentTimeMillis() / 1000, Offset.offset(120L));
        assertThat(runtime().isRunning(started.id())).isTrue();

        prepareGreeting();
        ExecResult result = runtime().exec(started.id(), GREETING_COMMAND, Map.of("GREETING", "hello"));
        assertThat(result.exitCode()).isEqualTo(7);
        assertThat(result.stdout()).isEqualTo("hello\n");
        assertThat(result.stderr()).isEqualTo("oops\n");

        assertThat(runtime().list(Map.of("roboco.sandbox.instance", "life-" + runId)))
                .singleElement()
                .satisfies(s -> {
                    assertThat(s.id()).isEqualTo(started.id());
                    assertThat(s.running()).isTrue();
                    assertThat(s.name()).isEqualTo(request.name());
                });
        assertThat(runtime().list(Map.of(RUN_LABEL, runId, "roboco.sandbox.instance", "nope")))
                .isEmpty();
        Map<String, String> anyValue = new HashMap<>();
        anyValue.put("roboco.sandbox.instance", null);
        anyValue.put(RUN_LABEL, runId);
        assertThat(runtime().list(anyValue)).extracting(ContainerState::id).contains(started.id());

        String logs = eventually(() -> runtime().logTail(started.id(), 50), l -> l.contains(expectedLogFragment()));
        assertThat(logs).contains(expectedLogFragment());

        runtime().remove(started.id());
        assertThat(runtime().inspect(started.id())).isEmpty();
        assertThat(runtime().isRunning(started.id())).isFalse();
        assertThat(runtime().logTail(started.id(), 10)).isEmpty();
        runtime().remove(started.id());
    }

    @Test
    void execFeedsStdinToItsEndAndStreamsStdout() {
        StartedContainer started = runtime().start(longRunningRequest(uniqueName("stdin"), labels()));
        prepareCat();
        String input = "line one\nline two\n".repeat(20_000);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExecResult result = runtime()
                .exec(
                        started.id(),
                        CAT_COMMAND,
                        Map.of(),
                        new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                        out);
        assertThat(result.exitCode())
                .as("the command saw the end of its input and finished")
                .isEqualTo(0);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(input);
        assertThat(result.stdout())
                .as("streamed stdout is not kept in the result")
                .isEmpty();
        assertThat(result.stderr()).isEqualTo("done\n");
        runtime().remove(started.id());
    }

    @Test
    void aNamedVolumeIsMountedReadOnlyWhereAskedOrARequestForOneIsRefused() throws Exception {
        String volume = "roboco-contract-vol-" + runId;
        Map<String, String> volumeLabels = Map.of("roboco.sandbox.contract", runId);
        RunRequest base = longRunningRequest(uniqueName("vol"), labels());
        if (!runtime().mountsVolumes()) {
            assertThatThrownBy(() -> runtime().start(base.withVolumes(List.of(new VolumeMount(volume, "/v", true)))))
                    .isInstanceOf(ContainerRuntimeException.class)
                    .hasMessageContaining("volume");
            assertThat(runtime().volumes(volumeLabels)).isEmpty();
            return;
        }
        runtime().createVolume(volume, volumeLabels);
        try {
            StartedContainer writer = runtime().start(base.withVolumes(List.of(new VolumeMount(volume, "/v", false))));
            assertThat(runtime()
                            .exec(writer.id(), List.of("sh", "-c", "echo kept > /v/f"), Map.of())
                            .exitCode())
                    .isZero();
            runtime().remove(writer.id());
            StartedContainer reader = runtime()
                    .start(longRunningRequest(uniqueName("vol-ro"), labels())
                            .withVolumes(List.of(new VolumeMount(volume, "/v", true))));
            assertThat(runtime()
                            .exec(reader.id(), List.of("cat", "/v/f"), Map.of())
                            .stdout())
                    .isEqualTo("kept\n");
            assertThat(runtime()
                            .exec(reader.id(), List.of("sh", "-c", "echo x > /v/g"), Map.of())
                            .exitCode())
                    .as("a read-only mount refuses a write")
                    .isNotZero();
            assertThat(runtime().volumes(volumeLabels)).containsExactly(volume);
            runtime().remove(reader.id());
        } finally {
            runtime().removeVolume(volume);
        }
        assertThat(runtime().volumes(volumeLabels)).isEmpty();
    }

    @Test
    void missingImageFailsNamingItAndLeavesNoContainer() {
        Map<String, String> labels = labels();
        labels.put("roboco.sandbox.instance", "missing-" + runId);
        RunRequest base = longRunningRequest(uniqueName("missing"), labels);
        RunRequest request = new RunRequest(
                base.name(),
                new ContainerSpec(
                        missingImage(),
                        base.spec().env(),
                        base.spec().command(),
                        base.spec().dataDir(),
                        base.spec().port()),
                base.labels(),
                base.limits(),
                base.network(),
                base.capabilities());

        assertThatThrownBy(() -> runtime().start(request))
                .isInstanceOf(ContainerRuntimeException.class)
                .hasMessageContaining(missingImage())
                .hasMessageContaining("./scripts/build-images.sh");
        assertThat(runtime().list(Map.of("roboco.sandbox.instance", "missing-" + runId)))
                .isEmpty();
    }

    @Test
    void exitedProcessReportsItsExitCode() {
        StartedContainer started = runtime().start(exitingRequest(uniqueName("exit"), labels(), 3));
        ContainerState state = eventually(() -> runtime().inspect(started.id()).orElseThrow(), s -> !s.running());
        assertThat(state.running()).isFalse();
        assertThat(state.exitCode()).isEqualTo(3);
        assertThat(state.oomKilled()).isFalse();
        assertThat(state.describe()).isEqualTo("exited with code 3");
        assertThat(runtime().list(Map.of(RUN_LABEL, runId)))
                .filteredOn(s -> s.id().equals(started.id()))
                .singleElement()
                .satisfies(s -> {
                    assertThat(s.running()).isFalse();
                    assertThat(s.exitCode()).isEqualTo(3);
                });
        runtime().remove(started.id());
        assertThat(runtime().inspect(started.id())).isEmpty();
    }

    @Test
    void nameAlreadyInUseIsRefused() {
        RunRequest request = longRunningRequest(uniqueName("dup"), labels());
        StartedContainer first = runtime().start(request);
        assertThatThrownBy(() -> runtime().start(request))
                .isInstanceOf(ContainerRuntimeException.class)
                .hasMessageContaining(request.name());
        assertThat(runtime().isRunning(first.id())).isTrue();
        runtime().remove(first.id());
    }

    @Test
    void execInMissingContainerFailsClearly() {
        assertThatThrownBy(() -> runtime().exec("no-such-container-" + runId, List.of("true"), Map.of()))
                .isInstanceOf(ContainerRuntimeException.class)
                .hasMessageContaining("no-such-container-" + runId);
        assertThat(runtime().inspect("no-such-container-" + runId)).isEqualTo(Optional.empty());
    }

    protected static <T> T eventually(Supplier<T> probe, Predicate<T> done) {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        T value = probe.get();
        while (!done.test(value) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            value = probe.get();
        }
        return value;
    }

    // ---- networks --------------------------------------------------------------------------------

    protected String uniqueNetwork(String what) {
        return "roboco-test-" + what + "-" + runId + "-"
                + UUID.randomUUID().toString().substring(0, 6);
    }

    private NetworkSpec network(String name, boolean internal, boolean isolated) {
        return new NetworkSpec(name, labels(), internal, isolated);
    }

    /** A long-running container started in network mode: on {@code back}, joined to {@code owner}. */
    private StartedContainer startIsolated(String back, String owner) {
        RunRequest base = longRunningRequest(uniqueName("net"), labels());
        return runtime()
                .start(new RunRequest(
                        base.name(),
                        base.spec(),
                        base.labels(),
                        base.limits(),
                        new NetworkMode.Isolated(back, owner),
                        base.capabilities()));
    }

    @Test
    void aNetworkIsMadeOnceWithItsLabelsAndFoundByThem() {
        requireNetworks();
        String name = uniqueNetwork("once");
        NetworkState first = runtime().ensureNetwork(network(name, true, false));
        NetworkState again = runtime().ensureNetwork(network(name, true, false));

        assertThat(again.id()).isEqualTo(first.id());
        assertThat(first.name()).isEqualTo(name);
        assertThat(first.labels()).containsEntry(RUN_LABEL, runId);
        assertThat(runtime().networks(Map.of(RUN_LABEL, runId)))
                .extracting(NetworkState::name)
                .contains(name);
        assertThat(runtime().inspectNetwork(uniqueNetwork("none"))).isEmpty();
        runtime().removeNetwork(name);
        assertThat(runtime().inspectNetwork(name)).isEmpty();
        runtime().removeNetwork(name); // a missing network is already removed
    }

    @Test
    void anIsolatedStartPublishesItsPortOnLoopbackAndJoinsBothNetworks() {
        requireNetworks();
        String back = runtime()
                .ensureNetwork(network(uniqueNetwork("back"), false, true))
                .name();
        String owner = runtime()
                .ensureNetwork(network(uniqueNetwork("owner"), true, false))
                .name();

        StartedContainer started = startIsolated(back, owner);

        assertThat(started.publishedPort())
                .as("a port the runtime published on the host's loopback")
                .isBetween(1, 65535);
        assertThat(runtime().inspect(started.id()).orElseThrow().networks()).containsExactlyInAnyOrder(back, owner);
        assertThat(runtime().inspectNetwork(owner).orElseThrow().containers()).contains(started.id());
        runtime().remove(started.id());
        assertThat(runtime().inspectNetwork(owner).orElseThrow().containers()).doesNotContain(started.id());
    }

    @Test
    void joiningAndLeavingANetworkAreIdempotentAndANetworkInUseIsNotRemoved() {
        requireNetworks();
        String back = runtime()
                .ensureNetwork(network(uniqueNetwork("back"), false, true))
                .name();
        String other = runtime()
                .ensureNetwork(network(uniqueNetwork("other"), true, false))
                .name();
        StartedContainer started = startIsolated(back, null);

        runtime().connect(other, started.id());
        runtime().connect(other, started.id());
        assertThat(runtime().inspectNetwork(other).orElseThrow().containers()).contains(started.id());
        assertThatThrownBy(() -> runtime().removeNetwork(other))
                .isInstanceOf(ContainerRuntimeException.class)
                .hasMessageContaining(other);
        runtime().disconnect(other, started.id());
        runtime().disconnect(other, started.id());
        assertThat(runtime().inspectNetwork(other).orElseThrow().containers()).doesNotContain(started.id());
        runtime().removeNetwork(other);
        assertThat(runtime().inspectNetwork(other)).isEmpty();
    }

    @Test
    void anIsolatedStartOnAMissingNetworkFailsSayingSoAndLeavesNoContainer() {
        requireNetworks();
        String back = runtime()
                .ensureNetwork(network(uniqueNetwork("back"), false, true))
                .name();
        String missing = uniqueNetwork("missing");
        assertThatThrownBy(() -> startIsolated(back, missing))
                .isInstanceOf(ContainerRuntimeException.class)
                .hasMessageContaining(missing)
                .hasMessageContaining("does not exist");
        assertThat(runtime().list(Map.of(RUN_LABEL, runId)))
                .noneMatch(c -> c.networks().contains(back));
    }
}
