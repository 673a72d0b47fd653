package io.roboco.sandbox.bench;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.server.RunningServer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** Runs the contenders round by round, then the scale and memory figures; holds every sample. */
final class Runner {
    /** One measurement: runs, records into its samples, cleans up after itself. */
    private record Contender(String name, Step step) {}

    @FunctionalInterface
    private interface Step {
        void run(boolean counted) throws Exception;
    }

    final Map<String, Samples> samples = new LinkedHashMap<>();
    final Map<String, Map<String, Object>> scale = new LinkedHashMap<>();
    final Map<String, Double> memoryMib = new LinkedHashMap<>();
    private final Bench.Servers servers;
    private final RawContender raw;
    private final TestcontainersContender testcontainers;
    private final TestcontainersContender testcontainersOfficialLike;
    private final KubernetesContender kubernetes;
    private final EngineRegistry registry;
    private final Bench.Options options;
    private final AtomicInteger agents = new AtomicInteger();
    private final List<Contender> contenders = new ArrayList<>();

    Runner(
            Bench.Servers servers,
            RawContender raw,
            TestcontainersContender testcontainers,
            TestcontainersContender testcontainersOfficialLike,
            KubernetesContender kubernetes,
            EngineRegistry registry,
            Bench.Options options) {
        this.servers = servers;
        this.raw = raw;
        this.testcontainers = testcontainers;
        this.testcontainersOfficialLike = testcontainersOfficialLike;
        this.kubernetes = kubernetes;
        this.registry = registry;
        this.options = options;
        for (String name : List.of(
                "raw_postgres",
                "raw_redis",
                "raw_mongo",
                "testcontainers_postgres",
                "raw_postgres_official_like",
                "testcontainers_postgres_official_like",
                "cold_postgres",
                "cold_redis",
                "cold_mongo",
                "cold_full_set",
                KubernetesContender.NAME,
                "cache_hit_postgres",
                "cache_hit_postgres_mcp",
                "cache_hit_full_set",
                "pool_claim_postgres",
                "seeded_pool_claim_postgres",
                "seed_at_claim_postgres",
                "seed_at_cold_start_postgres",
                "http_floor")) {
            samples.put(name, new Samples(name));
        }
        for (String engine : List.of("postgres", "redis", "mongo")) {
            contenders.add(new Contender(
                    "raw_" + engine, counted -> record("raw_" + engine, counted, raw.once(registry.require(engine)))));
        }
        contenders.add(new Contender(
                "testcontainers_postgres",
                counted -> record("testcontainers_postgres", counted, testcontainers.once())));
        contenders.add(new Contender(
                "raw_postgres_official_like",
                counted -> record(
                        "raw_postgres_official_like",
                        counted,
                        raw.once(registry.require("postgres"), Bench.OFFICIAL_LIKE_IMAGE))));
        contenders.add(new Contender(
                "testcontainers_postgres_official_like",
                counted ->
                        record("testcontainers_postgres_official_like", counted, testcontainersOfficialLike.once())));
        contenders.add(
                new Contender("cold_postgres", counted -> cold("pg", "cold_postgres", "cache_hit_postgres", counted)));
        contenders.add(new Contender(
                KubernetesContender.NAME,
                counted -> cold(kubernetes.api(), "pg", KubernetesContender.NAME, null, counted)));
        contenders.add(new Contender("cold_redis", counted -> cold("redis", "cold_redis", null, counted)));
        contenders.add(new Contender("cold_mongo", counted -> cold("mongo", "cold_mongo", null, counted)));
        contenders.add(new Contender(
                "cold_full_set", counted -> cold("full", "cold_full_set", "cache_hit_full_set", counted)));
        contenders.add(new Contender("pool_claim_postgres", this::poolClaim));
        contenders.add(new Contender("seeded_pool_claim_postgres", this::seededPoolClaim));
        contenders.add(new Contender("seed_at_claim_postgres", this::seedAtClaim));
        contenders.add(new Contender(
                "seed_at_cold_start_postgres",
                counted -> cold("seeded", "seed_at_cold_start_postgres", null, counted)));
        contenders.add(new Contender("http_floor", this::httpFloor));
        if (!options.only().isEmpty()) {
            contenders.removeIf(c -> !options.only().contains(c.name()));
        }
    }

    /**
     * Brings the JVM's compiled code to the steady state a serving process is in before anything is timed: one agent's
     * cache hits over HTTP and MCP and {@code GET /healthz}, {@code options.jitWarmup()} times each on every server (the
     * same code serves every server in this JVM), until done or 30 s. Nothing of it is counted; the rounds' own warm-up
     * rounds then warm the paths this cannot (a claim, a cold start).
     */
    void warmJit() throws Exception {
        long t0 = System.nanoTime();
        int calls = 0;
        for (Api api : List.of(servers.coldApi, servers.poolApi)) {
            for (int done = 0; done < options.jitWarmup() && Bench.since(t0).toSeconds() < 30; ) {
                // a fresh agent every 100: an agent token may begin 120 MCP calls a minute
                String agent = "bench-jit-" + agents.incrementAndGet();
                api.working(agent, "pg");
                try {
                    api.requestSandbox(agent);
                    try (McpSession mcp = McpSession.open(api.port(), api.mintToken(agent))) {
                        for (int i = 0; i < 100 && done < options.jitWarmup(); i++, done++) {
                            api.requestSandbox(agent);
                            mcp.callTool("request_sandbox", Map.of());
                            api.healthz();
                            calls += 3;
                        }
                    }
                } finally {
                    api.release(agent);
                    api.forget(agent);
                }
            }
        }
        if (calls > 0) {
            System.out.printf(
                    "--> JIT warm-up: %d untimed calls in %d ms%n",
                    calls, Bench.since(t0).toMillis());
        }
    }

    void rounds() throws Exception {
        warmJit();
        primeSeededPool();
        awaitPool();
        awaitIdle(servers.seedAtClaim, "postgres");
        int total = options.warmup() + options.rounds();
        for (int round = 0; round < total; round++) {
            boolean counted = round >= options.warmup();
            String label = counted
                    ? "round " + (round - options.warmup() + 1) + "/" + options.rounds()
                    : "warm-up " + (round + 1) + "/" + options.warmup();
            StringBuilder line = new StringBuilder("--> " + label + ":");
            for (int i = 0; i < contenders.size(); i++) {
                Contender c = contenders.get((i + round) % contenders.size()); // rotate the order every round
                try {
                    c.step().run(counted);
                    line.append(' ')
                            .append(c.name())
                            .append('=')
                            .append(String.format("%.0f", last.get()))
                            .append("ms");
                } catch (Exception e) {
                    samples.get(c.name()).failed();
                    line.append(' ')
                            .append(c.name())
                            .append("=FAILED(")
                            .append(e.getMessage())
                            .append(')');
                }
            }
            System.out.println(line);
        }
    }

    private final ThreadLocal<Double> last = ThreadLocal.withInitial(() -> Double.NaN);

    private void record(String name, boolean counted, double ms) {
        last.set(ms);
        if (counted) {
            samples.get(name).add(ms);
        }
    }

    /** A fresh agent's first request_sandbox over HTTP, then cache hits for the same agent, then release (not timed). */
    private void cold(String project, String coldName, String hitName, boolean counted) throws Exception {
        cold(servers.coldApi, project, coldName, hitName, counted);
    }

    /** {@link #cold(String, String, String, boolean)} on the server behind {@code api}. */
    private void cold(Api api, String project, String coldName, String hitName, boolean counted) throws Exception {
        String agent = "bench-" + project + "-" + agents.incrementAndGet();
        api.working(agent, project);
        try {
            double ms = Bench.time(() -> api.requestSandbox(agent));
            if (hitName != null) {
                for (int i = 0; i < options.hits(); i++) {
                    double hit = Bench.time(() -> api.requestSandbox(agent));
                    if (counted) {
                        samples.get(hitName).add(hit);
                    }
                }
            }
            if ("cache_hit_postgres".equals(hitName)) {
                mcpHits(api, agent, counted);
            }
            record(coldName, counted, ms);
        } finally {
            api.release(agent);
            api.forget(agent);
        }
    }

    /**
     * The same agent's cache hits as an MCP tool call over Streamable HTTP: its own token, one session
     * (initialize not timed), then tools/call request_sandbox end to end.
     */
    private void mcpHits(Api api, String agent, boolean counted) throws Exception {
        try (McpSession mcp = McpSession.open(api.port(), api.mintToken(agent))) {
            mcp.callTool("request_sandbox", Map.of()); // the session's first call: not counted
            for (int i = 0; i < options.hits(); i++) {
                double hit = Bench.time(() -> mcp.callTool("request_sandbox", Map.of()));
                if (counted) {
                    samples.get("cache_hit_postgres_mcp").add(hit);
                }
            }
        }
    }

    /**
     * The network floor (issue 21): {@code GET /healthz} on the server the cache hits are measured on, over the same
     * client, as many times a round as there are cache hits; the last one is what the round line shows.
     */
    private void httpFloor(boolean counted) throws Exception {
        Api api = servers.coldApi;
        double ms = Double.NaN;
        for (int i = 0; i < options.hits(); i++) {
            ms = Bench.time(api::healthz);
            if (counted) {
                samples.get("http_floor").add(ms);
            }
        }
        last.set(ms);
    }

    /** A fresh agent's request_sandbox on the pooled server, a claim when a ready container waits; then refill (not timed). */
    private void poolClaim(boolean counted) throws Exception {
        awaitPool();
        Api api = servers.poolApi;
        String agent = "bench-pool-" + agents.incrementAndGet();
        api.working(agent, "pg");
        try {
            Burst.awaitQuietHost(); // as every burst: the refill's tail is not the claim's
            double ms = Bench.time(() -> api.requestSandbox(agent));
            int idleAfter = servers.pooled.poolIdle().getOrDefault("postgres", 0);
            if (idleAfter != 0) {
                throw new IllegalStateException("the request did not claim from the pool");
            }
            record("pool_claim_postgres", counted, ms);
        } finally {
            api.release(agent);
            api.forget(agent);
            awaitPool(); // the refill must not overlap the next contender
        }
    }

    private void awaitPool() throws InterruptedException {
        awaitIdle(servers.pooled, "postgres");
        awaitIdle(servers.pooled, "seeded");
    }

    /** Until {@code server}'s pool has a ready container under {@code key} ({@code postgres}, {@code seeded}). */
    private static void awaitIdle(RunningServer server, String key) throws InterruptedException {
        long t0 = System.nanoTime();
        while (server.poolIdle().getOrDefault(key, 0) < 1) {
            if (Bench.since(t0).toSeconds() > 120) {
                throw new IllegalStateException("the warm pool (" + key + ") did not refill within 120 s");
            }
            Thread.sleep(20);
        }
    }

    /** The seeded project's first request on the pooled server makes its seeded pool (not timed; seeded at request time). */
    private void primeSeededPool() throws Exception {
        String agent = "bench-seeded-prime";
        servers.poolApi.working(agent, "seeded");
        try {
            servers.poolApi.requestSandbox(agent);
        } finally {
            servers.poolApi.release(agent);
            servers.poolApi.forget(agent);
        }
    }

    /**
     * A fresh agent's request_sandbox for the seeded project on the pooled server: a claim of a container seeded
     * before the request (the seeded pool's count drops to 0, or the request was not a seeded claim); then refill
     * (not timed).
     */
    private void seededPoolClaim(boolean counted) throws Exception {
        awaitPool();
        Api api = servers.poolApi;
        String agent = "bench-seeded-pool-" + agents.incrementAndGet();
        api.working(agent, "seeded");
        try {
            Burst.awaitQuietHost();
            double ms = Bench.time(() -> api.requestSandbox(agent));
            if (servers.pooled.poolIdle().getOrDefault("seeded", 0) != 0) {
                throw new IllegalStateException("the request did not claim from the seeded pool");
            }
            record("seeded_pool_claim_postgres", counted, ms);
        } finally {
            api.release(agent);
            api.forget(agent);
            awaitPool();
        }
    }

    /**
     * The seeded project on a server with an unseeded pool only: a claim, then the seed applied at request time as the
     * agent (the way every seeded sandbox was made before the seeded pool); then refill (not timed).
     */
    private void seedAtClaim(boolean counted) throws Exception {
        awaitIdle(servers.seedAtClaim, "postgres");
        Api api = servers.seedAtClaimApi;
        String agent = "bench-seed-at-claim-" + agents.incrementAndGet();
        api.working(agent, "seeded");
        try {
            double ms = Bench.time(() -> api.requestSandbox(agent));
            if (servers.seedAtClaim.poolIdle().getOrDefault("postgres", 0) != 0) {
                throw new IllegalStateException("the request did not claim from the pool");
            }
            record("seed_at_claim_postgres", counted, ms);
        } finally {
            api.release(agent);
            api.forget(agent);
            awaitIdle(servers.seedAtClaim, "postgres");
        }
    }

    /** N fresh agents request at once (postgres only, then the full set); all must be served. */
    void scale() throws Exception {
        for (String project : List.of("pg", "full")) {
            if (project.equals("full") && !options.scaleFullSet()) {
                continue;
            }
            int n = options.scaleAgents();
            System.out.printf("--> scale: %d fresh agents request the %s set at once ...%n", n, project);
            Api api = servers.coldApi;
            List<String> names = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String agent = "bench-scale-" + project + "-" + agents.incrementAndGet();
                api.working(agent, project);
                names.add(agent);
            }
            Samples s = new Samples("scale_" + project);
            ExecutorService pool = Executors.newFixedThreadPool(n);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            long t0 = System.nanoTime();
            for (String agent : names) {
                futures.add(pool.submit(() -> {
                    go.await();
                    try {
                        s.add(Bench.time(() -> api.requestSandbox(agent)));
                    } catch (Exception e) {
                        s.failed();
                        System.out.println("    " + agent + " not served: " + e.getMessage());
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : futures) {
                f.get();
            }
            double wall = Bench.since(t0).toNanos() / 1e6;
            List<Future<?>> releases = new ArrayList<>();
            for (String agent : names) {
                releases.add(pool.submit(() -> {
                    api.release(agent);
                    api.forget(agent);
                    return null;
                }));
            }
            for (Future<?> f : releases) {
                f.get();
            }
            pool.shutdown();
            Map<String, Object> figures = new LinkedHashMap<>(s.asJson());
            figures.put("agents", n);
            figures.put("served", s.count());
            figures.put("wall_ms", Samples.round(wall));
            scale.put(project.equals("pg") ? "postgres" : "full_set", figures);
            System.out.printf(
                    "    served %d/%d; p50 %.0f ms, p95 %.0f ms, max %.0f ms, all done in %.0f ms%n",
                    s.count(), n, s.median(), s.p95(), s.max(), wall);
        }
    }

    /** One idle sandbox per engine: memory as {@code docker stats --no-stream} reports it, after 3 s idle. */
    void memory(ContainerRuntime docker) throws Exception {
        Api api = servers.coldApi;
        String agent = "bench-memory-" + agents.incrementAndGet();
        api.working(agent, "full");
        try {
            api.requestSandbox(agent);
            Thread.sleep(3000);
            List<ContainerState> containers = docker.list(Bench.agentFilter(servers.cold, agent));
            Map<String, String> byId = new LinkedHashMap<>();
            containers.forEach(c -> byId.put(c.id(), c.labels().get("roboco.sandbox.service")));
            Machine.memoryMib(new ArrayList<>(byId.keySet())).forEach((id, mib) -> memoryMib.put(byId.get(id), mib));
            System.out.println("--> idle sandbox memory (docker stats): " + memoryMib);
        } finally {
            api.release(agent);
            api.forget(agent);
        }
    }
}
