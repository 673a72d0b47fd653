package io.roboco.sandbox.runtime.docker;

import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.StartedContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Create+start and remove latency of the Redis image through {@link DockerContainerRuntime}; prints the
 * medians of 10 (compare: {@code docker run -d} ≈ 0.3 s on this machine kind). The bound only catches
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
        docker.remove(docker.start(DockerContainerRuntimeIT.redisRequest("roboco-test-warm-" + runId, labels,
                DockerContainerRuntimeIT.freePort())).id());
        List<Long> starts = new ArrayList<>();
        List<Long> removes = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            var request = DockerContainerRuntimeIT.redisRequest("roboco-test-lat-" + runId + "-" + i, labels,
                    DockerContainerRuntimeIT.freePort());
            long t0 = System.nanoTime();
            StartedContainer started = docker.start(request);
            long t1 = System.nanoTime();
            docker.remove(started.id());
            long t2 = System.nanoTime();
            starts.add((t1 - t0) / 1_000_000);
            removes.add((t2 - t1) / 1_000_000);
        }
        long startMedian = median(starts);
        long removeMedian = median(removes);
        System.out.printf("DockerContainerRuntime redis create+start: median %d ms %s; remove: median %d ms %s%n",
                startMedian, starts, removeMedian, removes);
        assertThat(Duration.ofMillis(startMedian)).isLessThan(Duration.ofMillis(1500));
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
    }
}
