package io.roboco.sandbox.provision;

import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/** The locally built images the integration tests run, and a check that says how to get them. */
public final class LocalImages {
    public static final Map<String, String> IMAGES = Map.of(
            "postgres", "roboco-sandbox/postgres:15",
            "redis", "roboco-sandbox/redis:7",
            "mongo", "roboco-sandbox/mongo-compat:3");
    /** The local image per Postgres major (scripts/lib/images.sh holds the same table). */
    public static final Map<String, Map<String, String>> MAJOR_IMAGES =
            Map.of("postgres", Map.of("15", "roboco-sandbox/postgres:15", "17", "roboco-sandbox/postgres:17"));

    private LocalImages() {}

    /** Connects to the daemon and checks every local image exists; fails (never skips) with what to run. */
    public static ContainerRuntime requireDockerAndImages() {
        ContainerRuntime runtime = DockerContainerRuntime.connect();
        runtime.ping();
        Set<String> all = new TreeSet<>(IMAGES.values());
        MAJOR_IMAGES.values().forEach(byMajor -> all.addAll(byMajor.values()));
        for (String image : all) {
            if (!imageExists(image)) {
                throw new IllegalStateException("image " + image
                        + " is missing; run ./scripts/test.sh (or ./scripts/build-images.sh), which builds it");
            }
        }
        return runtime;
    }

    private static boolean imageExists(String image) {
        try {
            Process p = new ProcessBuilder("docker", "image", "inspect", "-f", "{{.Id}}", image)
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            throw new IllegalStateException(
                    "docker CLI not available: " + e.getMessage() + "; run ./scripts/test.sh", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Runs the docker CLI and returns its output (stdout and stderr together: inspect/logs evidence). Fails
     * (IllegalStateException naming the command, its exit status and output) when the command does not
     * exit 0 within 30 s: a {@code docker kill} that did not kill must never count as a kill.
     */
    public static String docker(String... args) {
        String what = "docker " + String.join(" ", args);
        try {
            String[] cmd = new String[args.length + 1];
            cmd[0] = "docker";
            System.arraycopy(args, 0, cmd, 1, args.length);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(what + " did not finish in 30 s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(what + " exited with status " + p.exitValue() + ": " + out.strip());
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException(what + ": docker CLI not available: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + " interrupted", e);
        }
    }
}
