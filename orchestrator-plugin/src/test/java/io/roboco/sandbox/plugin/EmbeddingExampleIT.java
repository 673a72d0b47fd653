package io.roboco.sandbox.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/embedding.md's example, run as an embedder would: its own JVM (a child process) builds the plugin with the
 * server's options (warm pool, TTL, quota, templates, re-adoption), provisions a real Postgres sandbox whose env works
 * for the agent, closes the plugin (which keeps the sandbox), builds it again on the same store and key and is answered
 * the same sandbox with the same credentials (a cache hit), releases it, closes and returns from main. The test waits for that JVM to exit on its own (no System.exit: any thread
 * the plugin left running would keep it alive) and finds nothing of the instance left. The local images stand in for
 * the production ones.
 */
class EmbeddingExampleIT {
    private static final String INSTANCE =
            "embed-it-" + UUID.randomUUID().toString().substring(0, 8);
    /** A cold start on a loaded 2-core machine is seconds; a JVM kept alive by a thread never exits. */
    private static final long EXIT_DEADLINE_SECONDS = 150;

    private static ContainerRuntime docker;

    @TempDir
    Path dir;

    @BeforeAll
    static void dockerAndImages() {
        docker = LocalImages.requireDockerAndImages();
    }

    @AfterAll
    static void sweep() {
        List<ContainerState> left = docker.list(SandboxLabels.ofInstance(INSTANCE));
        left.forEach(c -> docker.remove(c.id()));
        docker.close();
        assertThat(left)
                .as("containers of %s left after the example closed its plugin", INSTANCE)
                .isEmpty();
    }

    @Test
    void theEmbeddersJvmGetsAWorkingPostgresAndExitsAfterCloseLeavingNothing() throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                EmbeddingExample.class.getName(),
                INSTANCE,
                Files.createDirectories(dir.resolve("templates")).toString(),
                dir.resolve("readopt.key").toString()));
        LocalImages.IMAGES.forEach((engine, image) -> command.add(engine + "=" + image));
        Path output = dir.resolve("child.log");
        long t0 = System.nanoTime();
        Process child = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        boolean exited = child.waitFor(EXIT_DEADLINE_SECONDS, TimeUnit.SECONDS);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        List<String> lines = Files.readAllLines(output);
        if (!exited) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        assertThat(exited)
                .as(
                        "the embedder's JVM exited by itself within %d s after close(); its output:%n%s",
                        EXIT_DEADLINE_SECONDS, tail)
                .isTrue();
        System.out.println("[figure] embedder child JVM: start to exit " + millis + " ms; "
                + lines.stream()
                        .filter(l -> l.startsWith("path ") || l.startsWith("threads-after-close"))
                        .toList());
        assertThat(child.exitValue()).as("exit code; output:%n%s", tail).isZero();
        assertThat(lines)
                .as("what the agent saw")
                .anySatisfy(l -> assertThat(l).startsWith("answered agent_").endsWith(" true"))
                .anySatisfy(l -> assertThat(l).matches("expires-in-minutes (59|60)"))
                .anySatisfy(l -> assertThat(l).matches("path (pool|cold)"))
                .contains("path hit", "readopted-same-credentials true")
                .contains("threads-after-close ");
        assertThat(String.join("\n", lines)).as("no password printed").doesNotContainIgnoringCase("password=");
        assertThat(docker.list(SandboxLabels.ofInstance(INSTANCE)))
                .as("released with the engagement; the pool removed on close")
                .isEmpty();
    }
}
