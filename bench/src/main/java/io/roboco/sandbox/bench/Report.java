package io.roboco.sandbox.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** The table, the ratios against their targets, and {@code summary.json}. */
final class Report {
    private record Target(String key, double value, double limit, String unit) {
        boolean met() {
            return !Double.isNaN(value) && value <= limit;
        }
    }

    private final Runner runner;
    private final Burst burst;
    private final Bench.Options options;
    private final String runId;
    private final Instant started;
    private final String loadAtEnd;
    private final Map<String, Target> targets = new LinkedHashMap<>();
    /** Keys other benches add to summary.json as they are ({@link TemplateBench#summary}). */
    private final Map<String, Object> extra = new LinkedHashMap<>();

    Report(Runner runner, Burst burst, Bench.Options options, String runId, Instant started, String loadAtEnd) {
        this.runner = runner;
        this.burst = burst;
        this.options = options;
        this.runId = runId;
        this.started = started;
        this.loadAtEnd = loadAtEnd;
        Map<String, Samples> s = runner.samples;
        double slowestRaw = Math.max(
                s.get("raw_postgres").median(),
                Math.max(s.get("raw_redis").median(), s.get("raw_mongo").median()));
        add(
                "cold_postgres_vs_raw",
                s.get("cold_postgres").median() / s.get("raw_postgres").median(),
                1.10,
                "x");
        add("full_set_vs_slowest_raw", s.get("cold_full_set").median() / slowestRaw, 1.25, "x");
        add(
                "cold_postgres_vs_testcontainers",
                s.get("cold_postgres").median()
                        / s.get("testcontainers_postgres").median(),
                0.60,
                "x");
        // Like for like: Testcontainers on an image that starts as the official one does (initdb + init server).
        add(
                "cold_postgres_vs_testcontainers_official_like",
                s.get("cold_postgres").median()
                        / s.get("testcontainers_postgres_official_like").median(),
                0.60,
                "x");
        add("cache_hit_p50_ms", s.get("cache_hit_postgres").median(), 10, "ms");
        add("mcp_cache_hit_p50_ms", s.get("cache_hit_postgres_mcp").median(), 15, "ms");
        add("pool_claim_p50_ms", s.get("pool_claim_postgres").median(), 100, "ms");
        add("seeded_pool_claim_p50_ms", s.get("seeded_pool_claim_postgres").median(), 60, "ms");
        densityTargets(s, slowestRaw);
    }

    /** Issue 21's ratios: bursts against their floor, claims against a raw start, hits against the network floor. */
    private void densityTargets(Map<String, Samples> s, double slowestRaw) {
        double rawPostgres = s.get("raw_postgres").median();
        double rawSum =
                rawPostgres + s.get("raw_redis").median() + s.get("raw_mongo").median();
        double httpFloor = s.get("http_floor").median();
        Burst.Figures b100 = burst.bursts.get("postgres_100");
        add(
                "burst_postgres_100_wall_vs_floor",
                b100 == null ? Double.NaN : b100.wallMs() / (100 * rawPostgres / Machine.cores()),
                1.3,
                "x");
        add("burst_postgres_100_p50_vs_wall", b100 == null ? Double.NaN : b100.p50Ms() / b100.wallMs(), 0.6, "x");
        Burst.Figures pool20 = burst.bursts.get("postgres_20_pool");
        add(
                "burst_postgres_20_pool_p50_vs_pool_claim",
                pool20 == null
                        ? Double.NaN
                        : pool20.p50Ms() / s.get("pool_claim_postgres").median(),
                3,
                "x");
        add(
                "full_set_vs_floor",
                s.get("cold_full_set").median() / Math.max(slowestRaw, rawSum / Machine.cores()),
                1.25,
                "x");
        add("pool_claim_vs_raw", s.get("pool_claim_postgres").median() / rawPostgres, 0.05, "x");
        add("seeded_pool_claim_vs_raw", s.get("seeded_pool_claim_postgres").median() / rawPostgres, 0.07, "x");
        add("cache_hit_vs_http_floor", s.get("cache_hit_postgres").median() / httpFloor, 3, "x");
        add("mcp_cache_hit_vs_http_floor", s.get("cache_hit_postgres_mcp").median() / httpFloor, 6, "x");
    }

    /** Adds {@code more} to summary.json beside this report's keys. */
    void extra(Map<String, Object> more) {
        extra.putAll(more);
    }

    private void add(String key, double value, double limit, String unit) {
        // NaN (a contender this run did not measure, e.g. with --only) stays NaN: it is MISSED, never a 0 that is MET.
        targets.put(
                key,
                new Target(key, Double.isNaN(value) ? Double.NaN : Math.round(value * 1000) / 1000.0, limit, unit));
    }

    void print(PrintStream out) {
        out.println();
        out.printf("%-38s %4s %4s %9s %9s %9s %9s%n", "contender", "n", "fail", "median", "p95", "min", "max");
        for (Samples s : runner.samples.values()) {
            out.printf(
                    "%-38s %4d %4d %9.1f %9.1f %9.1f %9.1f%n",
                    s.name(), s.count(), s.failures(), s.median(), s.p95(), s.min(), s.max());
        }
        out.println(
                "(milliseconds to working credentials; cache hits and pool claims are end to end over HTTP; _mcp: as an MCP tools/call over Streamable HTTP;");
        out.println(
                " seeded_pool_claim / seed_at_claim / seed_at_cold_start: the same 13-statement seed from the seeded pool, on a claim, on a cold start)");
        out.printf(
                "seeded pool claim vs seed at claim: %.3f x; vs seed at cold start: %.3f x; vs unseeded pool claim: %.3f x%n",
                ratio(
                        runner.samples.get("seeded_pool_claim_postgres").median(),
                        runner.samples.get("seed_at_claim_postgres").median()),
                ratio(
                        runner.samples.get("seeded_pool_claim_postgres").median(),
                        runner.samples.get("seed_at_cold_start_postgres").median()),
                ratio(
                        runner.samples.get("seeded_pool_claim_postgres").median(),
                        runner.samples.get("pool_claim_postgres").median()));
        out.println();
        for (Target t : targets.values()) {
            out.printf(
                    "%-46s %9.3f %-2s  target <= %-6s %s%n",
                    t.key(), t.value(), t.unit(), fmt(t.limit()), t.met() ? "MET" : "MISSED");
        }
        runner.scale.forEach((set, f) -> out.printf(
                "scale %-10s %s/%s served; p50 %s ms, p95 %s ms, max %s ms, wall %s ms%n",
                set,
                f.get("served"),
                f.get("agents"),
                f.get("median_ms"),
                f.get("p95_ms"),
                f.get("max_ms"),
                f.get("wall_ms")));
        burst.bursts
                .values()
                .forEach(f -> out.printf(
                        "burst %-18s %s/%s served; p50 %s ms, p95 %s ms, max %s ms, wall %s ms, floor %s ms (%s x), queue peak %s,"
                                + " CPU busy %s%n",
                        f.key(),
                        f.json().get("served"),
                        f.json().get("agents"),
                        f.json().get("median_ms"),
                        f.json().get("p95_ms"),
                        f.json().get("max_ms"),
                        f.json().get("wall_ms"),
                        f.json().get("floor_ms"),
                        f.json().get("wall_vs_floor"),
                        f.json().get("start_queue_peak"),
                        f.json().get("cpu_busy_share")));
        out.println("idle sandbox memory (MiB, docker stats): " + runner.memoryMib);
        out.println("load average at end: " + loadAtEnd);
    }

    void write(Path file) throws IOException {
        Map<String, Object> json = new LinkedHashMap<>();
        targets.values().forEach(t -> json.put(t.key(), t.value()));
        // Not targets; context for the Testcontainers comparison and the full set.
        Map<String, Samples> all = runner.samples;
        json.put(
                "pool_claim_postgres_vs_testcontainers",
                ratio(
                        all.get("pool_claim_postgres").median(),
                        all.get("testcontainers_postgres").median()));
        json.put(
                "raw_postgres_vs_testcontainers",
                ratio(
                        all.get("raw_postgres").median(),
                        all.get("testcontainers_postgres").median()));
        json.put(
                "raw_postgres_official_like_vs_testcontainers_official_like",
                ratio(
                        all.get("raw_postgres_official_like").median(),
                        all.get("testcontainers_postgres_official_like").median()));
        json.put(
                "pool_claim_postgres_vs_testcontainers_official_like",
                ratio(
                        all.get("pool_claim_postgres").median(),
                        all.get("testcontainers_postgres_official_like").median()));
        json.put(
                "cache_hit_full_set_p50_ms",
                Samples.round(all.get("cache_hit_full_set").median()));
        // The seeded pool against seeding at request time, same seed, same run.
        json.put(
                "seeded_pool_claim_vs_seed_at_claim",
                ratio(
                        all.get("seeded_pool_claim_postgres").median(),
                        all.get("seed_at_claim_postgres").median()));
        json.put(
                "seeded_pool_claim_vs_seed_at_cold_start",
                ratio(
                        all.get("seeded_pool_claim_postgres").median(),
                        all.get("seed_at_cold_start_postgres").median()));
        json.put(
                "seeded_pool_claim_vs_pool_claim",
                ratio(
                        all.get("seeded_pool_claim_postgres").median(),
                        all.get("pool_claim_postgres").median()));
        // The Kubernetes path's overhead over the Docker one (docs/performance.md): same project, same images.
        json.put(
                "cold_postgres_k8s_vs_cold_postgres",
                ratio(
                        all.get(KubernetesContender.NAME).median(),
                        all.get("cold_postgres").median()));
        Map<String, Object> met = new LinkedHashMap<>();
        targets.values().forEach(t -> met.put(t.key(), Map.of("limit", t.limit(), "met", t.met())));
        json.put("targets", met);
        Map<String, Object> contenders = new LinkedHashMap<>();
        runner.samples.forEach((name, s) -> contenders.put(name, s.asJson()));
        json.put("contenders", contenders);
        json.put("scale", runner.scale);
        Map<String, Object> bursts = new LinkedHashMap<>();
        burst.bursts.forEach((key, f) -> bursts.put(key, f.json()));
        json.put("burst", bursts);
        json.put("http_floor_p50_ms", Samples.round(all.get("http_floor").median()));
        json.put("cores", Machine.cores());
        json.put("idle_memory_mib", runner.memoryMib);
        json.putAll(extra);
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("id", runId);
        run.put("started", started.toString());
        run.put("finished", Instant.now().toString());
        run.put("warmup_rounds", options.warmup());
        run.put("counted_rounds", options.rounds());
        run.put("cache_hits_per_round", options.hits());
        run.put("load_average_at_end", loadAtEnd);
        run.put("only", options.only());
        json.put("run", run);
        Files.createDirectories(file.toAbsolutePath().getParent());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), json);
    }

    private static double ratio(double a, double b) {
        return Math.round(a / b * 1000) / 1000.0;
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
