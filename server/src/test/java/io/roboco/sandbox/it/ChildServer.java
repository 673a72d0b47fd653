package io.roboco.sandbox.it;

import io.roboco.sandbox.testkit.ApiClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The standalone server as a child JVM ({@code target/roboco-sandbox.jar}, configured from
 * its environment), its stdout and stderr captured to a file, so a test can {@code kill -9} it.
 */
public final class ChildServer implements AutoCloseable {
    private static final int START_BOUND_SECONDS = 180;

    private final Process process;
    private final Path log;
    public final ApiClient api;

    private ChildServer(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.api = new ApiClient(port);
    }

    /** Starts the jar with {@code env} (plus ROBOCO_SANDBOX_PORT) and waits up to 60 s for /healthz to say running. */
    public static ChildServer start(Map<String, String> env, int port, Path log) throws Exception {
        Path jar = Path.of("target", "roboco-sandbox.jar").toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing; run the verify phase (it is built in package)");
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "-Xmx256m", "-jar", jar.toString()));
        pb.environment().putAll(env);
        pb.environment().put("ROBOCO_SANDBOX_PORT", Integer.toString(port));
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        ChildServer child = new ChildServer(pb.start(), log, port);
        // A bound, not a budget: a start that re-adopts sandboxes on a loaded 2-core machine took over 60 s
        // (JVM start ~10 s, liveness checks of every kept container); a healthy start returns at once.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_BOUND_SECONDS);
        while (System.nanoTime() < deadline) {
            if (!child.process.isAlive()) {
                throw new IllegalStateException(
                        "server exited with " + child.process.exitValue() + "; log: " + child.logText());
            }
            try {
                ApiClient.Reply r = child.api.send("GET", "/healthz", null, null);
                if (r.status() == 200 && "running".equals(r.json().get("state"))) {
                    return child;
                }
            } catch (AssertionError notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        child.process.destroyForcibly();
        throw new IllegalStateException("server not healthy in " + START_BOUND_SECONDS + " s; log: " + child.logText());
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    public long pid() {
        return process.pid();
    }

    /** SIGKILL, and wait (bounded) for the process to be gone. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("child " + process.pid() + " survived SIGKILL for 30 s");
        }
    }

    public String logText() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** SIGTERM, and wait up to {@code seconds} for the shutdown hook to finish; true when the process exited by itself. */
    public boolean sigterm(int seconds) throws InterruptedException {
        process.destroy();
        return process.waitFor(seconds, TimeUnit.SECONDS);
    }

    /** Waits (bounded) until the log holds {@code text} {@code times} times; false when the deadline passed first. */
    public boolean awaitLog(String text, int times, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (logText().split(Pattern.quote(text), -1).length - 1 >= times) {
                return true;
            }
            if (!process.isAlive()) {
                return false;
            }
            Thread.sleep(50);
        }
        return false;
    }

    /** SIGTERM (the shutdown hook releases every sandbox); SIGKILL after 30 s. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
