package io.roboco.sandbox.engine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Just enough of the docker CLI for the engines' integration tests. Secrets are handed to docker
 * through its own environment ({@code -e NAME} without a value), never on its command line.
 */
public final class DockerCli {
    public static final String TEST_LABEL = "roboco.sandbox.test=engines";
    /** The sandbox memory limit {@link #run} starts containers with ({@code --memory 512m}). */
    public static final long MEMORY_BYTES = 512L << 20;

    private DockerCli() {}

    /** Runs {@code spec} detached in host network mode with the sandbox's limits and security options; returns the container id. */
    public static String run(ContainerSpec spec) {
        List<String> args = new ArrayList<>(List.of(
                "docker",
                "run",
                "-d",
                "--network",
                "host",
                "--label",
                TEST_LABEL,
                "--label",
                "roboco.sandbox=1",
                "--cap-drop",
                "ALL",
                "--cap-add",
                "CHOWN",
                "--cap-add",
                "SETUID",
                "--cap-add",
                "SETGID",
                "--cap-add",
                "FOWNER",
                "--cap-add",
                "DAC_OVERRIDE",
                "--security-opt",
                "no-new-privileges",
                "--memory",
                "512m",
                "--cpus",
                "1",
                "--pids-limit",
                "512",
                "--tmpfs",
                spec.dataDir() + ":rw,size=256m"));
        for (String name : spec.env().keySet()) {
            args.add("-e");
            args.add(name);
        }
        args.add(spec.image());
        args.addAll(spec.command());
        ExecResult result = docker(args, spec.env(), 60);
        if (!result.ok()) {
            throw new IllegalStateException("docker run failed (exit " + result.exitCode() + "): " + result.output());
        }
        return result.stdout().strip();
    }

    public static ContainerExec exec(String id) {
        return (command, env) -> {
            List<String> args = new ArrayList<>(List.of("docker", "exec"));
            for (String name : env.keySet()) {
                args.add("-e");
                args.add(name);
            }
            args.add(id);
            args.addAll(command);
            return docker(args, env, 60);
        };
    }

    public static boolean running(String id) {
        ExecResult r = docker(List.of("docker", "inspect", "-f", "{{.State.Running}}", id), Map.of(), 10);
        return r.ok() && r.stdout().strip().equals("true");
    }

    public static String logTail(String id) {
        return docker(List.of("docker", "logs", "--tail", "30", id), Map.of(), 10)
                .output();
    }

    public static String inspect(String id) {
        return docker(List.of("docker", "inspect", id), Map.of(), 10).stdout();
    }

    public static void remove(String id) {
        docker(List.of("docker", "rm", "-f", "-v", id), Map.of(), 30);
    }

    public static boolean imageExists(String image) {
        return docker(List.of("docker", "image", "inspect", "-f", "{{.Id}}", image), Map.of(), 10)
                .ok();
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static ExecResult docker(List<String> args, Map<String, String> env, int timeoutSeconds) {
        try {
            ProcessBuilder builder = new ProcessBuilder(args);
            builder.environment().putAll(env);
            Process process = builder.start();
            process.getOutputStream().close();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("docker " + args.get(1) + " timed out after " + timeoutSeconds + " s");
            }
            return new ExecResult(process.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run the docker CLI; the integration tests need Docker", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(InputStream in) {
        try (in) {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            in.transferTo(buffer);
            return buffer.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
