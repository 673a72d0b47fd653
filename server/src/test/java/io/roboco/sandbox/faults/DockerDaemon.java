package io.roboco.sandbox.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Stops and starts the machine's dockerd the way it was started by hand here
 * ({@code nohup dockerd > /tmp/dockerd.log 2>&1 &}, no systemd). Only the process named in
 * {@code /var/run/docker.pid}, and only after checking it is dockerd.
 */
final class DockerDaemon {
    static final Path PID_FILE = Path.of("/var/run/docker.pid");
    /** Where the restarted dockerd logs: {@code ROBOCO_DOCKERD_LOG} (as scripts/lib/prereqs.sh), else /tmp/dockerd.log as started by hand here. */
    static final String LOG = System.getenv().getOrDefault("ROBOCO_DOCKERD_LOG", "/tmp/dockerd.log");

    private DockerDaemon() {}

    static boolean answers() {
        try {
            Process p = new ProcessBuilder("docker", "info", "--format", "{{.ServerVersion}}")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            return p.waitFor(15, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** SIGTERM to dockerd; waits (at most {@code seconds}) for it to exit. Returns the pid it stopped. */
    static long stop(int seconds) throws Exception {
        long pid = Long.parseLong(Files.readString(PID_FILE).strip());
        ProcessHandle daemon = ProcessHandle.of(pid)
                .orElseThrow(() -> new IllegalStateException("no process " + pid + " from " + PID_FILE));
        String comm =
                Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip();
        if (!comm.equals("dockerd")) {
            throw new IllegalStateException(
                    "pid " + pid + " from " + PID_FILE + " is '" + comm + "', not dockerd; not touching it");
        }
        Process kill = new ProcessBuilder("kill", "-TERM", Long.toString(pid))
                .inheritIO()
                .start();
        kill.waitFor(10, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (daemon.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        if (daemon.isAlive()) {
            throw new IllegalStateException("dockerd " + pid + " still alive " + seconds + " s after SIGTERM");
        }
        return pid;
    }

    /** Starts dockerd detached, as by hand ({@code nohup dockerd >> /tmp/dockerd.log 2>&1 &}); waits for {@code docker info}. */
    static void start(int seconds) throws Exception {
        if (answers()) {
            return;
        }
        Process p = new ProcessBuilder("bash", "-c", "setsid nohup dockerd >> " + LOG + " 2>&1 < /dev/null &")
                .inheritIO()
                .start();
        p.waitFor(10, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!answers() && System.nanoTime() < deadline) {
            Thread.sleep(500);
        }
        if (!answers()) {
            throw new IllegalStateException("dockerd did not answer within " + seconds + " s of starting; see " + LOG);
        }
    }
}
