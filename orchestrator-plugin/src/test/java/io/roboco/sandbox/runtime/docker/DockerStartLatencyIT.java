package io.roboco.sandbox.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Create+start and remove latency of the Redis image through {@link DockerContainerRuntime}; prints the
 * medians of 10, interleaved with {@code docker run -d} / {@code docker rm -f} of the same container
 * (when the CLI is on the PATH) so both see the same machine load. The bound only catches
 * gross regressions such as an added pull or inspect round trip on a busy 2-core machine.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DockerStartLatencyIT {
    private static final int RUNS = 10;
    private final String runId = UUID.randomUUID().toString().substring(0, 8);
    private final DockerContainerRuntime docker = DockerContainerRuntime.connect();

    @BeforeAll
    void daemonAndImagesArePresent() {
        DockerContainerRuntimeIT.requireDaemonAndImages(docker);
    }

    @AfterAll
    void removeEverything() {
        try {
            for (ContainerState s : docker.list(Map.of("roboco.sandbox.test.run", runId))) {
                docker.remove(s.id());
            }
        } finally {
            docker.close();
        }
    }

    @Test
    void createAndStartTakesAboutAsLongAsDockerRun() {
        Map<String, String> labels = Map.of("roboco.sandbox.test", "runtime", "roboco.sandbox.test.run", runId);
        // Warm-up: class loading and the first connection are not what we measure.
        docker.remove(docker.start(DockerContainerRuntimeIT.redisRequest(
                        "roboco-test-warm-" + runId, labels, DockerContainerRuntimeIT.freePort()))
                .id());
        List<Long> starts = new ArrayList<>();
        List<Long> removes = new ArrayList<>();
        List<Long> cliRuns = new ArrayList<>();
        List<Long> cliRemoves = new ArrayList<>();
        boolean cli = cli(List.of("docker", "version", "--format", "{{.Server.Version}}")) >= 0;
        for (int i = 0; i < RUNS; i++) {
            var request = DockerContainerRuntimeIT.redisRequest(
                    "roboco-test-lat-" + runId + "-" + i, labels, DockerContainerRuntimeIT.freePort());
            long t0 = System.nanoTime();
            StartedContainer started = docker.start(request);
            long t1 = System.nanoTime();
            docker.remove(started.id());
            starts.add((t1 - t0) / 1_000_000);
            removes.add((System.nanoTime() - t1) / 1_000_000);
            if (cli) { // interleaved, so both see the same machine load
                String name = "roboco-test-cli-" + runId + "-" + i;
                cliRuns.add(cli(dockerRun(name, DockerContainerRuntimeIT.freePort())));
                cliRemoves.add(cli(List.of("docker", "rm", "-f", "-v", name)));
            }
        }
        System.out.printf(
                "DockerContainerRuntime redis create+start: median %d ms %s; remove: median %d ms %s%n",
                median(starts), starts, median(removes), removes);
        if (cli) {
            System.out.printf(
                    "docker CLI `docker run -d` same flags: median %d ms %s; `docker rm -f -v`: median %d ms %s%n",
                    median(cliRuns), cliRuns, median(cliRemoves), cliRemoves);
        }
        assertThat(Duration.ofMillis(median(starts))).isLessThan(Duration.ofMillis(1500));
    }

    private List<String> dockerRun(String name, int port) {
        List<String> cmd = new ArrayList<>(List.of(
                "docker",
                "run",
                "-d",
                "--name",
                name,
                "--label",
                "roboco.sandbox.test=runtime",
                "--label",
                "roboco.sandbox.test.run=" + runId,
                "--tmpfs",
                "/data:rw,size=268435456,mode=1777",
                "--memory",
                "536870912",
                "--memory-swap",
                "536870912",
                "--cpus",
                "1",
                "--pids-limit",
                "512",
                "--security-opt",
                "no-new-privileges:true",
                "--cap-drop",
                "ALL"));
        for (String cap : RunRequest.ENTRYPOINT_CAPABILITIES) {
            cmd.addAll(List.of("--cap-add", cap));
        }
        cmd.addAll(List.of(
                "--network",
                "host",
                DockerContainerRuntimeIT.REDIS_IMAGE,
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                String.valueOf(port),
                "--save",
                ""));
        return cmd;
    }

    /** Runs a command; its wall time in ms, or -1 when it could not run or failed. */
    private static long cli(List<String> command) {
        long t0 = System.nanoTime();
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return p.waitFor() == 0 ? (System.nanoTime() - t0) / 1_000_000 : -1;
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
    }
}
