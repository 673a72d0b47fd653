package io.roboco.sandbox.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Vendor types stay behind our own interfaces: docker-java only in {@code runtime.docker}, fabric8 only in
 * {@code runtime.kubernetes} (module runtime-kubernetes, so an embedding without it has no fabric8), Javalin
 * (and the MCP SDK) only in the server and dashboard modules. Reads the main sources of every module (this module sits last in the
 * reactor, beside the others).
 */
class VendorConfinementTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static List<Path> mainSources() {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/main/java/"))
                    .filter(p -> !ROOT.relativize(p).startsWith("images"))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean imports(Path file, String prefix) {
        try {
            return Files.readAllLines(file).stream()
                    .anyMatch(l -> l.startsWith("import " + prefix) || l.startsWith("import static " + prefix));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void dockerJavaIsConfinedToTheDockerRuntimePackage() {
        List<Path> sources = mainSources();
        assertThat(sources).as("found the modules' sources").hasSizeGreaterThan(50);
        assertThat(sources.stream()
                        .filter(p -> imports(p, "com.github.dockerjava"))
                        .filter(p -> !p.toString().contains("/io/roboco/sandbox/runtime/docker/"))
                        // The benchmark drives Testcontainers, whose container-command hook speaks docker-java.
                        .filter(p -> !ROOT.relativize(p).startsWith("bench"))
                        .filter(p -> !testCluster(p)))
                .as("docker-java outside runtime.docker (and the benchmark, and testkit's test cluster)")
                .isEmpty();
    }

    /** testkit's test cluster (test scope only): the mock API server and the Docker-backed kubelet it drives. */
    private static boolean testCluster(Path p) {
        return ROOT.relativize(p).startsWith("testkit")
                && p.toString().contains("/io/roboco/sandbox/testkit/kubernetes/");
    }

    @Test
    void fabric8IsConfinedToTheKubernetesRuntimePackage() {
        List<Path> sources = mainSources();
        assertThat(sources)
                .as("the Kubernetes runtime's sources are among them")
                .anyMatch(p -> p.toString().endsWith("/runtime/kubernetes/KubernetesContainerRuntime.java"));
        assertThat(sources.stream()
                        .filter(p -> imports(p, "io.fabric8"))
                        .filter(p -> !(ROOT.relativize(p).startsWith("runtime-kubernetes")
                                && p.toString().contains("/io/roboco/sandbox/runtime/kubernetes/")))
                        .filter(p -> !testCluster(p)))
                .as("fabric8 outside runtime-kubernetes' package runtime.kubernetes (and testkit's test cluster)")
                .isEmpty();
    }

    @Test
    void javalinAndTheMcpSdkAreConfinedToTheServerAndDashboardModules() {
        assertThat(mainSources().stream()
                        .filter(p -> imports(p, "io.javalin") || imports(p, "io.modelcontextprotocol"))
                        .filter(p -> !ROOT.relativize(p).startsWith("dashboard")
                                && !ROOT.relativize(p).startsWith("server")))
                .as("Javalin / MCP SDK outside server and dashboard")
                .isEmpty();
    }

    @Test
    void driversStayInTheEnginesAndInspectionModules() {
        assertThat(mainSources().stream()
                        .filter(p -> imports(p, "redis.clients") || imports(p, "com.mongodb"))
                        .filter(p -> !ROOT.relativize(p).startsWith("engines")
                                && !ROOT.relativize(p).startsWith("sql-inspect")
                                && !ROOT.relativize(p).startsWith("bench")))
                .as("Jedis / Mongo driver outside engines and sql-inspect (and the benchmark)")
                .isEmpty();
    }
}
