package io.roboco.sandbox.bench;

import io.roboco.sandbox.provision.StartQueue;
import io.roboco.sandbox.server.RunningServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Issue 21's burst: N fresh agents ask for their sandbox in the same instant, with and without a warm pool. Each
 * burst records p50, p95, max and the wall time of all, the start queue's peak (from the server's {@code /metrics}),
 * the host's load (load average, CPU busy share during the burst) and the floor N × {@code raw_postgres} ÷ cores
 * measured in the same run. The servers it uses raise the container cap so the burst is timed, not refused.
 */
final class Burst {
    /** One burst's figures, as summary.json has them under {@code burst}. */
    record Figures(String key, Map<String, Object> json, double wallMs, double p50Ms) {}

    /** Ready containers the pooled burst server keeps (the most a pool may: {@code PoolSizes.MAX_PER_ENGINE}). */
    static final int POOL_SIZE = 16;

    /** Each burst starts once the host is quiet ({@link Machine#awaitQuiet}) for this long, waiting at most {@link #QUIET_MAX}. */
    static final Duration QUIET_WINDOW = Duration.ofMillis(250);

    static final Duration QUIET_MAX = Duration.ofSeconds(15);

    private final AtomicInteger agents = new AtomicInteger();
    /** Per key, the burst of median p50 among those run under it (one, or the middle of a repeated size). */
    final Map<String, Figures> bursts = new LinkedHashMap<>();

    /** Per key, every burst run under it, in order. */
    private final Map<String, List<Figures>> runs = new LinkedHashMap<>();

    /**
     * Every burst the options ask for: postgres at each size on the server without a pool, the full set at its size,
     * then postgres at each pool size on a server of its own keeping {@value #POOL_SIZE} ready containers (made for
     * the bursts and closed after them; the pool is full again before each burst). Floors from this run's raw medians.
     */
    void all(Bench.Servers servers, Map<String, Samples> samples, Bench.Options options, ServerFactory pooled)
            throws Exception {
        double rawPostgres = samples.get("raw_postgres").median();
        double rawSet = rawPostgres
                + samples.get("raw_redis").median()
                + samples.get("raw_mongo").median();
        int cores = Machine.cores();
        for (int n : options.burstSizes()) {
            run("postgres_" + n, servers.cold, servers.coldApi, "pg", n, n * rawPostgres / cores);
        }
        if (options.burstFullSet() > 0) {
            int n = options.burstFullSet();
            run("full_set_" + n, servers.cold, servers.coldApi, "full", n, n * rawSet / cores);
        }
        if (options.burstPoolSizes().isEmpty()) {
            return;
        }
        try (RunningServer server = pooled.start(POOL_SIZE)) {
            Api api = new Api(server.port(), Bench.API, Bench.ADMIN);
            api.project("pg", List.of("postgres"));
            if (options.jitWarmup() > 0) {
                // A warm-up burst of claims only, not recorded: the claim path's code compiled as in a serving process
                // (the rounds claimed a handful of times), so the timed bursts measure claims, not the JIT.
                awaitPool(server, POOL_SIZE);
                run("pool_warmup", server, api, "pg", POOL_SIZE, Double.NaN);
                bursts.remove("pool_warmup");
            }
            for (int n : options.burstPoolSizes()) {
                awaitPool(server, POOL_SIZE);
                run("postgres_" + n + "_pool", server, api, "pg", n, n * rawPostgres / cores);
            }
        }
    }

    /**
     * The burst of median p50 among {@code same} (the lower middle of an even count), with every one's p50 in run order
     * under {@code p50_of_each_ms}: a size run more than once (the pooled 20 by default) is read by its middle burst, not
     * by whichever ran last.
     */
    private static Figures median(List<Figures> same) {
        if (same.size() == 1) {
            return same.get(0);
        }
        List<Figures> byP50 = new ArrayList<>(same);
        byP50.sort(Comparator.comparingDouble(Figures::p50Ms));
        Figures middle = byP50.get((byP50.size() - 1) / 2);
        Map<String, Object> json = new LinkedHashMap<>(middle.json());
        json.put(
                "p50_of_each_ms",
                same.stream().map(f -> Samples.round(f.p50Ms())).toList());
        return new Figures(middle.key(), json, middle.wallMs(), middle.p50Ms());
    }

    /** Until the host is quiet ({@link Machine#awaitQuiet}), before every timed burst and every timed pool claim. */
    static Machine.Quiet awaitQuietHost() throws InterruptedException {
        return Machine.awaitQuiet(QUIET_WINDOW, QUIET_MAX);
    }

    /** Starts a server like the bench's others keeping {@code size} ready Postgres containers. */
    @FunctionalInterface
    interface ServerFactory {
        RunningServer start(int size) throws Exception;
    }

    private static void awaitPool(RunningServer server, int size) throws InterruptedException {
        long t0 = System.nanoTime();
        while (server.poolIdle().getOrDefault("postgres", 0) < size) {
            if (Bench.since(t0).toSeconds() > 300) {
                throw new IllegalStateException(
                        "the burst's warm pool did not fill to " + size + " within 300 s (" + server.poolIdle() + ")");
            }
            Thread.sleep(50);
        }
    }

    /**
     * {@code n} fresh agents of {@code project} ({@code pg}, {@code full}) request at once on {@code server}; all
     * released afterwards (not timed). {@code floorMs} is this burst's floor (NaN: none).
     */
    Figures run(String key, RunningServer server, Api api, String project, int n, double floorMs) throws Exception {
        System.out.printf("--> burst %s: %d fresh agents request the %s set at once ...%n", key, n, project);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String agent = "bench-burst-" + key.replace('_', '-') + "-" + agents.incrementAndGet();
            api.working(agent, project);
            names.add(agent);
        }
        Samples s = new Samples("burst_" + key);
        Machine.Quiet quiet = awaitQuietHost();
        System.out.printf(
                "    started after %d ms on a %s host (busy %.0f %% over the last %d ms)%n",
                quiet.waitedMs(),
                quiet.quiet() ? "quiet" : "still busy",
                quiet.busyShare() * 100,
                QUIET_WINDOW.toMillis());
        ExecutorService threads = Executors.newFixedThreadPool(n);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        AtomicReference<String> firstFailure = new AtomicReference<>();
        Machine.CpuTimes cpuBefore = Machine.cpuTimes();
        long jvmBefore = Machine.processCpuMillis();
        long jitBefore = Machine.jitCompileMillis();
        long containersBefore = Machine.containersCpuMillis();
        Map<Long, Long> daemonsBefore = Machine.daemonsCpuMillis();
        Map<String, Long> threadsBefore = Machine.threadGroupsCpuMillis();
        String loadBefore = Machine.loadAverage();
        server.startQueue().resetPeak();
        long t0 = System.nanoTime();
        for (String agent : names) {
            futures.add(threads.submit(() -> {
                go.await();
                try {
                    s.add(Bench.time(() -> api.requestSandbox(agent)));
                } catch (Exception e) {
                    s.failed();
                    firstFailure.compareAndSet(null, agent + ": " + e.getMessage());
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : futures) {
            f.get();
        }
        double wall = Bench.since(t0).toNanos() / 1e6;
        Machine.CpuTimes cpuAfter = Machine.cpuTimes();
        double busy = cpuAfter.busyShareSince(cpuBefore);
        double hostCpuPerAgent = (double) (cpuAfter.busy() - cpuBefore.busy()) * Machine.MS_PER_TICK / n;
        double jvmCpuPerAgent = (double) (Machine.processCpuMillis() - jvmBefore) / n;
        long jitMs = Machine.jitCompileMillis() - jitBefore;
        double containersCpuPerAgent = (double) (Machine.containersCpuMillis() - containersBefore) / n;
        double daemonsCpuPerAgent =
                (double) Machine.daemonsCpuMillisSince(daemonsBefore, Machine.daemonsCpuMillis()) / n;
        String byThread = Machine.threadGroupsSince(threadsBefore, Machine.threadGroupsCpuMillis(), 8);
        String loadAfter = Machine.loadAverage();
        StartQueue.Snapshot queue = server.startQueue().snapshot();
        List<Future<?>> releases = new ArrayList<>();
        for (String agent : names) {
            releases.add(threads.submit(() -> {
                api.release(agent);
                api.forget(agent);
                return null;
            }));
        }
        for (Future<?> f : releases) {
            f.get();
        }
        threads.shutdown();
        threads.awaitTermination(1, TimeUnit.MINUTES);
        Map<String, Object> json = new LinkedHashMap<>(s.asJson());
        json.remove("samples_ms");
        json.put("agents", n);
        json.put("served", s.count());
        json.put("wall_ms", Samples.round(wall));
        json.put("floor_ms", Samples.round(floorMs));
        json.put("wall_vs_floor", ratio(wall, floorMs));
        json.put("p50_vs_wall", ratio(s.median(), wall));
        json.put("start_queue_peak", queue.peakWaiting());
        json.put("concurrent_starts", queue.limit());
        json.put("start_queue_timed_out_total", queue.timedOut());
        json.put("mean_start_turn_ms", queue.meanTurnMillis());
        json.put("cpu_busy_share", Samples.round(busy * 100) / 100.0);
        json.put("host_cpu_ms_per_agent", Samples.round(hostCpuPerAgent));
        json.put("bench_jvm_cpu_ms_per_agent", Samples.round(jvmCpuPerAgent));
        json.put("containers_cpu_ms_per_agent", Samples.round(containersCpuPerAgent));
        json.put("daemons_cpu_ms_per_agent", Samples.round(daemonsCpuPerAgent));
        json.put("jit_compile_ms", jitMs);
        json.put("bench_jvm_threads_cpu_ms", byThread);
        json.put("latencies_ms", s.sorted().stream().map(Samples::round).toList());
        json.put("quiet_wait_ms", quiet.waitedMs());
        json.put("busy_share_before", Samples.round(quiet.busyShare() * 100) / 100.0);
        json.put("load_average_before", loadBefore);
        json.put("load_average_after", loadAfter);
        if (firstFailure.get() != null) {
            json.put("first_failure", firstFailure.get());
        }
        Figures figures = new Figures(key, json, wall, s.median());
        List<Figures> same = runs.computeIfAbsent(key, k -> new ArrayList<>());
        same.add(figures);
        bursts.put(key, median(same));
        System.out.printf(
                "    served %d/%d; p50 %.0f ms, p95 %.0f ms, max %.0f ms, wall %.0f ms (floor %.0f ms: %.2f x);"
                        + " queue peak %s; CPU busy %.0f %%; load %s; host CPU %.0f ms an agent (this JVM's %.0f ms,"
                        + " containers' %.0f ms, daemons' %.0f ms), JIT compiling %d ms%n",
                s.count(),
                n,
                s.median(),
                s.p95(),
                s.max(),
                wall,
                floorMs,
                wall / floorMs,
                json.get("start_queue_peak"),
                busy * 100,
                loadAfter,
                hostCpuPerAgent,
                jvmCpuPerAgent,
                containersCpuPerAgent,
                daemonsCpuPerAgent,
                jitMs);
        System.out.println("    this JVM's CPU by thread (ms): " + byThread);
        if (firstFailure.get() != null) {
            System.out.println("    first not served: " + firstFailure.get());
        }
        return figures;
    }

    static double ratio(double a, double b) {
        return Math.round(a / b * 1000) / 1000.0;
    }
}
