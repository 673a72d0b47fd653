package io.roboco.sandbox.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** What the bench reads from the machine: load, images, container memory. Through the docker CLI where the runtime SPI has no call. */
final class Machine {
    private Machine() {}

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2] + " (" + Runtime.getRuntime().availableProcessors() + " cores)";
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The host's CPU time so far, all cores ({@code /proc/stat}'s first line), busy and in all. */
    record CpuTimes(long busy, long total) {
        /** Share of the host's CPU time spent busy since {@code before} (0-1; NaN when unknown). */
        double busyShareSince(CpuTimes before) {
            long total = this.total - before.total;
            return total <= 0 ? Double.NaN : (double) (busy - before.busy) / total;
        }
    }

    /**
     * This JVM's time in its JIT compilers so far (ms; the compiler threads' elapsed time, which on a saturated host is
     * their CPU): a burst early in a process's life pays for compiling the paths it runs, a serving process does not.
     */
    static long jitCompileMillis() {
        var jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /** This JVM's CPU time so far (ms, all its threads: the bench's client and its in-process servers). */
    static long processCpuMillis() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
                ? os.getProcessCpuTime() / 1_000_000
                : 0;
    }

    /** {@code /proc/stat} counts in clock ticks of 10 ms (USER_HZ 100 on Linux). */
    static final long MS_PER_TICK = 10;

    static CpuTimes cpuTimes() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]); // idle + iowait
            return new CpuTimes(total - idle, total);
        } catch (IOException | RuntimeException e) {
            return new CpuTimes(0, 0);
        }
    }

    /** What {@link #awaitQuiet} saw: how long it waited, and the host's busy share in its last window. */
    record Quiet(long waitedMs, double busyShare, boolean quiet) {}

    /** The busy share of the host's CPU below which it counts as quiet (the idle sandboxes and daemons stay above 0). */
    static final double QUIET_BUSY_SHARE = 0.25;

    /**
     * Waits, at most {@code max}, until the host is quiet: one window of {@code window} with its CPU busy below
     * {@link #QUIET_BUSY_SHARE} and this JVM's JIT compilers (nearly) idle. A timed measurement started right after other
     * work (the pool's refill: its containers' first seconds, their claim sessions, the compiles they queued) would
     * otherwise measure that work's tail; what a burst then measures is the burst.
     */
    static Quiet awaitQuiet(Duration window, Duration max) throws InterruptedException {
        long t0 = System.nanoTime();
        while (true) {
            CpuTimes before = cpuTimes();
            long jitBefore = jitCompileMillis();
            Thread.sleep(window.toMillis());
            double busy = cpuTimes().busyShareSince(before);
            boolean jitIdle = jitCompileMillis() - jitBefore <= window.toMillis() / 20;
            long waited = (System.nanoTime() - t0) / 1_000_000;
            if (busy < QUIET_BUSY_SHARE && jitIdle) {
                return new Quiet(waited, busy, true);
            }
            if (waited >= max.toMillis()) {
                return new Quiet(waited, busy, false);
            }
        }
    }

    /**
     * CPU time so far (ms) of every container the daemon runs: the cgroup v1 {@code cpuacct/docker} group, or the sum of
     * cgroup v2's {@code docker-*.scope} groups; 0 when neither is readable.
     */
    static long containersCpuMillis() {
        Path v1 = Path.of("/sys/fs/cgroup/cpuacct/docker/cpuacct.usage");
        try {
            if (Files.isReadable(v1)) {
                return Long.parseLong(Files.readString(v1).trim()) / 1_000_000;
            }
            long micros = 0;
            try (Stream<Path> scopes = Files.list(Path.of("/sys/fs/cgroup/system.slice"))) {
                for (Path scope : scopes.filter(d -> d.getFileName().toString().startsWith("docker-"))
                        .toList()) {
                    for (String line : Files.readAllLines(scope.resolve("cpu.stat"))) {
                        if (line.startsWith("usage_usec ")) {
                            micros += Long.parseLong(
                                    line.substring("usage_usec ".length()).trim());
                        }
                    }
                }
            }
            return micros / 1000;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * This JVM's CPU time so far (ms, user + system) by thread group: each thread's name ({@code /proc/self/task}, so
     * the JIT compilers and the collector count too) with its digits dropped, so a pool's threads are one group.
     * Compare two with {@link #threadGroupsSince}.
     */
    static Map<String, Long> threadGroupsCpuMillis() {
        Map<String, Long> byGroup = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                ProcStat.of(task)
                        .ifPresent(
                                t -> byGroup.merge(t.comm().replaceAll("[0-9]+", "N"), t.cpuMillis(false), Long::sum));
            }
        } catch (IOException e) {
            return Map.of();
        }
        return byGroup;
    }

    /**
     * The groups that used the most CPU between two {@link #threadGroupsCpuMillis} readings, most first, at most
     * {@code top} ({@code name ms}, comma-separated). A group whose threads ended in between can read low.
     */
    static String threadGroupsSince(Map<String, Long> before, Map<String, Long> after, int top) {
        return after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(top)
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    /**
     * CPU time so far (ms; user + system, with reaped children's) of each container daemon process, by pid:
     * {@code dockerd}, {@code containerd} and every {@code containerd-shim*} (which counts the {@code runc} calls it
     * waited for). Compare two with {@link #daemonsCpuMillisSince}.
     */
    static Map<Long, Long> daemonsCpuMillis() {
        Map<Long, Long> byPid = new HashMap<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path proc : procs.filter(
                            d -> d.getFileName().toString().chars().allMatch(Character::isDigit))
                    .toList()) {
                ProcStat.of(proc)
                        .filter(p -> p.comm().equals("dockerd") || p.comm().startsWith("containerd"))
                        .ifPresent(
                                p -> byPid.put(Long.parseLong(proc.getFileName().toString()), p.cpuMillis(true)));
            }
        } catch (IOException e) {
            return Map.of();
        }
        return byPid;
    }

    /** A process's or thread's {@code stat} file ({@code /proc/<pid>} or {@code /proc/self/task/<tid>}): its name and the fields after it. */
    private record ProcStat(String comm, String[] fields) {
        /** Empty when it ended while listed (or its file does not parse). */
        static Optional<ProcStat> of(Path dir) {
            try {
                String stat = Files.readString(dir.resolve("stat"));
                int close = stat.lastIndexOf(')');
                return Optional.of(new ProcStat(
                        stat.substring(stat.indexOf('(') + 1, close),
                        stat.substring(close + 2).split(" ")));
            } catch (IOException | RuntimeException gone) {
                return Optional.empty();
            }
        }

        /**
         * Its CPU time (ms): user + system, and with {@code children} the reaped children's too. After the name the
         * state is field 3, so utime (14) .. cstime (17) are {@code fields[11]} .. {@code fields[14]}.
         */
        long cpuMillis(boolean children) {
            long ticks = 0;
            for (int i = 11; i <= (children ? 14 : 12); i++) {
                ticks += Long.parseLong(fields[i]);
            }
            return ticks * MS_PER_TICK;
        }
    }

    /**
     * The daemons' CPU between two {@link #daemonsCpuMillis} readings: each process alive at the second counts what it
     * used since the first (all of it when it started in between). A shim that exited in between is not counted (its
     * container was removed: not a start's work), so this never goes below zero, as a sum over whichever processes
     * were alive at each reading did.
     */
    static long daemonsCpuMillisSince(Map<Long, Long> before, Map<Long, Long> after) {
        long ms = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            ms += Math.max(0, e.getValue() - before.getOrDefault(e.getKey(), 0L));
        }
        return ms;
    }

    static int cores() {
        return Runtime.getRuntime().availableProcessors();
    }

    static void requireImages(Collection<String> images) {
        for (String image : images) {
            if (!run(List.of("docker", "image", "inspect", "-f", "{{.Id}}", image))
                    .ok()) {
                throw new IllegalStateException(
                        "image " + image + " is missing; run ./scripts/build-images.sh (bench.sh does)");
            }
        }
    }

    /** Memory usage in MiB per container id, from {@code docker stats --no-stream}. */
    static Map<String, Double> memoryMib(List<String> ids) {
        Map<String, Double> out = new LinkedHashMap<>();
        if (ids.isEmpty()) {
            return out;
        }
        List<String> cmd = new ArrayList<>(
                List.of("docker", "stats", "--no-stream", "--no-trunc", "--format", "{{.ID}} {{.MemUsage}}"));
        cmd.addAll(ids);
        Result r = run(cmd);
        for (String line : r.output().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 2) {
                out.put(f[0], mib(f[1]));
            }
        }
        return out;
    }

    static double mib(String value) {
        String v = value.trim();
        double factor;
        if (v.endsWith("GiB")) {
            factor = 1024;
        } else if (v.endsWith("MiB")) {
            factor = 1;
        } else if (v.endsWith("KiB") || v.endsWith("kB")) {
            factor = 1.0 / 1024;
        } else {
            factor = 1.0 / (1024 * 1024);
        }
        return Samples.round(Double.parseDouble(v.replaceAll("[^0-9.]", "")) * factor);
    }

    record Result(int exit, String output) {
        boolean ok() {
            return exit == 0;
        }
    }

    static Result run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, out);
            }
            return new Result(p.exitValue(), out);
        } catch (IOException e) {
            return new Result(-1, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted");
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
