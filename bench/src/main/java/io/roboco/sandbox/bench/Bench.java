package io.roboco.sandbox.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.PortAllocator;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.store.JdbcSettingsStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * {@code ./scripts/bench.sh [--quick]}: time to working credentials, side by side in one run, contenders
 * alternating round by round (the order rotates each round), warm-up rounds discarded. See docs/performance.md.
 */
public final class Bench {
    static final String API = "bench-api-token-0123456789abcdef";
    /** {@code --only templates}: only the template scenarios ({@link TemplateBench}). */
    static final String TEMPLATES = "templates";

    static final String ADMIN = "bench-admin-token-0123456789abcdef";
    static final Map<String, String> LOCAL_IMAGES = Map.of(
            "postgres", "roboco-sandbox/postgres:15",
            "redis", "roboco-sandbox/redis:7",
            "mongo", "roboco-sandbox/mongo-compat:3");
    /**
     * The like-for-like baseline: the same Postgres started the way the official image starts it (initdb and a
     * temporary init server on every start); override with {@code ROBOCO_BENCH_IMAGE_POSTGRES_OFFICIAL_LIKE}.
     */
    static final String OFFICIAL_LIKE_IMAGE = System.getenv()
            .getOrDefault("ROBOCO_BENCH_IMAGE_POSTGRES_OFFICIAL_LIKE", "roboco-sandbox/postgres-official-like:15");

    private Bench() {}

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        Instant started = Instant.now();
        String runId = UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> labels = Map.of("roboco.bench", runId);
        Map<String, String> images = images();
        List<String> missing = TestcontainersContender.missingEnvironment();
        if (!missing.isEmpty()) {
            System.err.println(
                    "bench: set " + missing + " (./scripts/bench.sh does): no registry and no Ryuk on these machines");
            System.exit(2);
        }
        System.out.printf(
                "==> bench run %s: %d warm-up + %d counted rounds, %d cache hits per round, scale %d agents; load average %s%n",
                runId,
                options.warmup(),
                options.rounds(),
                options.hits(),
                options.scaleAgents(),
                Machine.loadAverage());

        EngineRegistry registry = EngineRegistry.defaults();
        Path state = Files.createTempDirectory("roboco-bench-");
        if (options.only().equals(Set.of(TEMPLATES))) {
            templatesOnly(options, runId, started, images, state);
            System.exit(0);
        }
        PortAllocator ports = new PortAllocator();
        try (ContainerRuntime docker = DockerContainerRuntime.connect();
                Servers servers = Servers.start(state, images, registry);
                KubernetesContender kubernetes =
                        new KubernetesContender(state.resolve("kubernetes"), images, registry)) {
            docker.ping();
            List<String> required = new ArrayList<>(images.values());
            required.add(OFFICIAL_LIKE_IMAGE);
            Machine.requireImages(required);
            Burst burst = new Burst();
            Runner runner = new Runner(
                    servers,
                    new RawContender(docker, images, labels, ports),
                    new TestcontainersContender(images.get("postgres"), 1, labels, ports),
                    new TestcontainersContender(OFFICIAL_LIKE_IMAGE, 2, labels, ports),
                    kubernetes,
                    registry,
                    options);
            TemplateBench templates = options.only().isEmpty() || options.only().contains(TEMPLATES)
                    ? new TemplateBench(images, options)
                    : null;
            try {
                runner.rounds();
                if (options.scale() && !options.burstOnly()) {
                    runner.scale();
                    runner.memory(docker);
                }
                if (options.scale() && (options.only().isEmpty() || options.burstOnly())) {
                    burst.all(
                            servers,
                            runner.samples,
                            options,
                            size -> Servers.server(
                                    state.resolve("burst-pool"), images, registry, Map.of("postgres", size), Map.of()));
                }
            } finally {
                kubernetes.close();
                servers.close();
                removeLabelled(docker, labels);
                servers.instances().forEach(instance -> removeLabelled(docker, SandboxLabels.ofInstance(instance)));
            }
            if (templates != null) {
                templates.run(state, docker); // its own server, after the others are closed
                templates.print();
            }
            Report report = new Report(runner, burst, options, runId, started, Machine.loadAverage());
            if (templates != null) {
                report.extra(templates.summary());
            }
            report.print(System.out);
            Path out = options.out();
            report.write(out);
            System.out.println("==> wrote " + out.toAbsolutePath());
        } finally {
            Machine.deleteTree(state);
        }
        // The MCP SDK's transport (2.1.0) leaves a non-daemon session-sweeper thread per server after the server is
        // closed, which kept the JVM (and bench.sh) waiting forever after the report was written.
        System.exit(0);
    }

    /** {@code --only templates}: the template scenarios alone ({@link TemplateBench}), their own summary.json. */
    private static void templatesOnly(
            Options options, String runId, Instant started, Map<String, String> images, Path state) throws Exception {
        try (ContainerRuntime docker = DockerContainerRuntime.connect()) {
            docker.ping();
            Machine.requireImages(List.copyOf(images.values()));
            TemplateBench templates = new TemplateBench(images, options);
            templates.run(state, docker);
            templates.print();
            Map<String, Object> json = new LinkedHashMap<>(templates.summary());
            Map<String, Object> run = new LinkedHashMap<>();
            run.put("id", runId);
            run.put("only", List.of(TEMPLATES));
            run.put("started", started.toString());
            run.put("finished", Instant.now().toString());
            run.put("load_average_at_end", Machine.loadAverage());
            json.put("run", run);
            Files.createDirectories(options.out().toAbsolutePath().getParent());
            new ObjectMapper()
                    .enable(SerializationFeature.INDENT_OUTPUT)
                    .writeValue(options.out().toFile(), json);
            System.out.println("==> wrote " + options.out().toAbsolutePath());
        } finally {
            Machine.deleteTree(state);
        }
    }

    private static Map<String, String> images() {
        Map<String, String> images = new LinkedHashMap<>();
        LOCAL_IMAGES.forEach((engine, image) -> images.put(
                engine, System.getenv().getOrDefault(ServerConfig.IMAGE_PREFIX + engine.toUpperCase(), image)));
        return images;
    }

    static void removeLabelled(ContainerRuntime docker, Map<String, String> labels) {
        for (ContainerState c : docker.list(labels)) {
            docker.remove(c.id());
        }
    }

    /**
     * Command-line options. {@code --only burst} runs only the contenders the bursts' floors and issue 21's ratios need
     * ({@link #BURST_CONTENDERS}), then the bursts (no scale, no memory); {@code --burst-sizes 20,50,100},
     * {@code --burst-pool-sizes 20,20,20} (a size given more than once is read by its burst of median p50) and
     * {@code --burst-full-set 20} (0: none) bound them.
     */
    record Options(
            int warmup,
            int rounds,
            int hits,
            int jitWarmup,
            int scaleAgents,
            boolean scaleFullSet,
            Path out,
            boolean scale,
            Set<String> only,
            boolean burstOnly,
            List<Integer> burstSizes,
            List<Integer> burstPoolSizes,
            int burstFullSet) {
        /** What {@code --only burst} measures in its rounds: the raw floors, the network floor, the paths it compares. */
        static final Set<String> BURST_CONTENDERS = Set.of(
                "raw_postgres",
                "raw_redis",
                "raw_mongo",
                "http_floor",
                "cold_postgres",
                "cold_full_set",
                "pool_claim_postgres",
                "seeded_pool_claim_postgres");

        /**
         * Cache hits (and {@code /healthz} calls) per round: each costs about a millisecond, and with 5 a round (what
         * {@code --quick} took before) the median of 20 moved by ±40 % from run to run; 20 a round give 80.
         */
        static final int HITS = 20;

        static Options parse(String[] args) {
            boolean quick = false;
            boolean scale = true;
            Set<String> only = Set.of();
            Path out = Path.of("target", "bench", "summary.json");
            Integer rounds = null;
            Integer jitWarmup = null;
            Integer hits = null;
            List<Integer> burstSizes = List.of(20, 50, 100);
            List<Integer> burstPoolSizes = null;
            int burstFullSet = 20;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> quick = true;
                    case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                    case "--jit-warmup" -> jitWarmup = Integer.parseInt(args[++i]);
                    case "--hits" -> hits = Integer.parseInt(args[++i]);
                    case "--out" -> out = Path.of(args[++i]);
                    case "--no-scale" -> scale = false;
                    case "--only" -> only = Set.of(args[++i].split(","));
                    case "--burst-sizes" -> burstSizes = sizes(args[++i]);
                    case "--burst-pool-sizes" -> burstPoolSizes = sizes(args[++i]);
                    case "--burst-full-set" -> burstFullSet = Integer.parseInt(args[++i]);
                    default ->
                        throw new IllegalArgumentException("unknown option " + args[i]
                                + "; use --quick, --rounds N, --hits N, --jit-warmup N (0: none), --out FILE, --no-scale, --only contender,contender (or"
                                + " --only templates: the template scenarios alone; --only burst: issue 21's bursts),"
                                + " --burst-sizes N,N, --burst-pool-sizes N,N, --burst-full-set N");
                }
            }
            boolean burstOnly = only.contains("burst");
            if (burstOnly) {
                Set<String> contenders = new TreeSet<>(only);
                contenders.remove("burst");
                contenders.addAll(BURST_CONTENDERS);
                only = Set.copyOf(contenders);
            }
            if (burstPoolSizes == null) {
                // Three pooled bursts of 20, read by the middle one: a pooled burst lasts tens of ms, so one is at the
                // mercy of whatever else the host and the young JVM (its compilers) do in those ms.
                burstPoolSizes = burstSizes.contains(20) ? List.of(20, 20, 20) : List.of(burstSizes.get(0));
            }
            return quick
                    ? new Options(
                            1,
                            rounds == null ? 4 : rounds,
                            hits == null ? HITS : hits,
                            jitWarmup == null ? 300 : jitWarmup,
                            20,
                            true,
                            out,
                            scale,
                            only,
                            burstOnly,
                            burstSizes,
                            burstPoolSizes,
                            burstFullSet)
                    : new Options(
                            2,
                            rounds == null ? 12 : rounds,
                            hits == null ? HITS : hits,
                            jitWarmup == null ? 300 : jitWarmup,
                            20,
                            true,
                            out,
                            scale,
                            only,
                            burstOnly,
                            burstSizes,
                            burstPoolSizes,
                            burstFullSet);
        }

        private static List<Integer> sizes(String csv) {
            List<Integer> sizes = new ArrayList<>();
            for (String n : csv.split(",")) {
                if (!n.isBlank()) {
                    int size = Integer.parseInt(n.trim());
                    if (size < 1 || size > 500) {
                        throw new IllegalArgumentException("burst size " + size + " is out of range; use 1-500");
                    }
                    sizes.add(size);
                }
            }
            return List.copyOf(sizes);
        }
    }

    /** Runs {@code what} and returns its wall time in ms. */
    static double time(Callable<?> what) throws Exception {
        long t0 = System.nanoTime();
        what.call();
        return (System.nanoTime() - t0) / 1e6;
    }

    static Duration since(long nanos) {
        return Duration.ofNanos(System.nanoTime() - nanos);
    }

    static List<Engine> engines(EngineRegistry registry) {
        return new ArrayList<>(registry.all());
    }

    /**
     * The seed of the {@code seeded} project: a small shop schema (a schema, 4 tables with foreign keys, an index, a
     * view, a function) and about 5,000 rows; 13 statements.
     */
    static final String SEED_SQL = """
            CREATE SCHEMA shop;
            CREATE TABLE shop.customers (id bigserial PRIMARY KEY, email text NOT NULL UNIQUE, created timestamptz DEFAULT now());
            CREATE TABLE shop.products (id bigserial PRIMARY KEY, sku text NOT NULL UNIQUE, price numeric(10,2) NOT NULL);
            CREATE TABLE shop.orders (id bigserial PRIMARY KEY, customer_id bigint NOT NULL REFERENCES shop.customers (id),
                                      placed timestamptz DEFAULT now());
            CREATE TABLE shop.order_lines (order_id bigint REFERENCES shop.orders (id), product_id bigint REFERENCES shop.products (id),
                                           qty int NOT NULL, PRIMARY KEY (order_id, product_id));
            CREATE INDEX orders_customer_idx ON shop.orders (customer_id);
            CREATE VIEW shop.order_totals AS SELECT o.id, sum(l.qty * p.price) AS total FROM shop.orders o
                JOIN shop.order_lines l ON l.order_id = o.id JOIN shop.products p ON p.id = l.product_id GROUP BY o.id;
            CREATE FUNCTION shop.customer_total(c bigint) RETURNS numeric LANGUAGE sql STABLE AS $$
                SELECT coalesce(sum(t.total), 0) FROM shop.order_totals t JOIN shop.orders o ON o.id = t.id WHERE o.customer_id = c $$;
            INSERT INTO shop.customers (email) SELECT 'c' || g || '@shop.test' FROM generate_series(1, 1000) g;
            INSERT INTO shop.products (sku, price) SELECT 'sku-' || g, g % 100 + 0.99 FROM generate_series(1, 200) g;
            INSERT INTO shop.orders (customer_id) SELECT 1 + g % 1000 FROM generate_series(1, 2000) g;
            INSERT INTO shop.order_lines SELECT o, 1 + (o * 7) % 200, 1 + o % 5 FROM generate_series(1, 2000) o;
            ANALYZE;
            """;

    /**
     * The in-process servers: one without a pool (cold, cache hits, scale, seed at request time on a cold start), one
     * with a Postgres pool and a seeded pool ({@code ROBOCO_SANDBOX_POOL_SEEDED=1}), and one with a Postgres pool only
     * (a seeded project's sandbox is then a claim seeded at request time, as before the seeded pool).
     */
    static final class Servers implements AutoCloseable {
        final RunningServer cold;
        final RunningServer pooled;
        final RunningServer seedAtClaim;
        final Api coldApi;
        final Api poolApi;
        final Api seedAtClaimApi;

        private Servers(RunningServer cold, RunningServer pooled, RunningServer seedAtClaim) {
            this.cold = cold;
            this.pooled = pooled;
            this.seedAtClaim = seedAtClaim;
            this.coldApi = new Api(cold.port(), API, ADMIN);
            this.poolApi = new Api(pooled.port(), API, ADMIN);
            this.seedAtClaimApi = new Api(seedAtClaim.port(), API, ADMIN);
        }

        static Servers start(Path state, Map<String, String> images, EngineRegistry registry) throws Exception {
            RunningServer cold = server(state.resolve("cold"), images, registry, Map.of());
            RunningServer pooled = null;
            RunningServer seedAtClaim;
            try {
                pooled = server(state.resolve("pool"), images, registry, Map.of("postgres", 1, "seeded", 1));
                seedAtClaim = server(state.resolve("seed-at-claim"), images, registry, Map.of("postgres", 1));
            } catch (RuntimeException e) {
                cold.close();
                if (pooled != null) {
                    pooled.close();
                }
                throw e;
            }
            Servers servers = new Servers(cold, pooled, seedAtClaim);
            for (Api api : List.of(servers.coldApi, servers.poolApi, servers.seedAtClaimApi)) {
                api.project("pg", List.of("postgres"));
                api.project("redis", List.of("redis"));
                api.project("mongo", List.of("mongo"));
                api.project("full", List.of("postgres", "redis", "mongo"));
                api.seededProject("seeded", SEED_SQL);
            }
            return servers;
        }

        private static RunningServer server(
                Path dir, Map<String, String> images, EngineRegistry registry, Map<String, Integer> pool)
                throws Exception {
            return server(dir, images, registry, pool, Map.of());
        }

        /**
         * Production wiring (embedded settings store, Docker runtime, default engines) over the local images, with
         * {@code more} settings on top.
         */
        static RunningServer server(
                Path dir,
                Map<String, String> images,
                EngineRegistry registry,
                Map<String, Integer> pool,
                Map<String, String> more)
                throws Exception {
            Files.createDirectories(dir);
            Map<String, String> env = env(dir, images);
            pool.forEach((engine, size) -> env.put(ServerConfig.POOL_PREFIX + engine.toUpperCase(), size.toString()));
            env.putAll(more);
            ServerConfig config = ServerConfig.fromEnv(env).withPort(0);
            return SandboxServer.start(
                    config,
                    DockerContainerRuntime.connect(),
                    registry,
                    JdbcSettingsStore.embedded(dir),
                    Clock.systemUTC());
        }

        /** The prefix of a bench's environment variable that sets a server setting (the rest of its name). */
        static final String SERVER_SETTING = "ROBOCO_BENCH_SERVER_";

        /** The settings every bench server shares: the state dir, the local images, the limits a burst needs. */
        static Map<String, String> env(Path dir, Map<String, String> images) {
            Map<String, String> env = new LinkedHashMap<>();
            env.put("ROBOCO_SANDBOX_STATE_DIR", dir.toString());
            env.put("ROBOCO_SANDBOX_DB_ENABLED", "true");
            env.put("ROBOCO_SANDBOX_NETWORK", "host");
            env.put("ROBOCO_SANDBOX_API_TOKEN", API);
            env.put("ROBOCO_SANDBOX_ADMIN_TOKEN", ADMIN);
            // 20 full sets at once on 2 cores take longer than the 30 s default.
            env.put("ROBOCO_SANDBOX_READY_TIMEOUT", "180s");
            env.put("ROBOCO_SANDBOX_JANITOR_GRACE", "10m");
            // 20 full sets at once are 60 containers, the 100-agent burst 100, the pooled one 16 more: past the default
            // capacity (3/4 of host memory over 512 MB: 35 on a 24 GB host), which refused part of a burst instead of
            // timing it. A burst is timed to the last agent, so no start gives up waiting for its turn either.
            env.put("ROBOCO_SANDBOX_MAX_CONTAINERS", "250");
            env.put("ROBOCO_SANDBOX_START_QUEUE_WAIT", "15m");
            // Nothing of a bench run is for a later process: its state dir is deleted at the end, so a pool kept for
            // re-adoption (the default at a graceful stop) would be left running with no server to claim it.
            env.put("ROBOCO_SANDBOX_READOPT", "false");
            images.forEach((engine, image) -> env.put(ServerConfig.IMAGE_PREFIX + engine.toUpperCase(), image));
            // A server setting to try in a run: ROBOCO_BENCH_SERVER_ROBOCO_SANDBOX_CONCURRENT_STARTS=2, say.
            System.getenv().forEach((name, value) -> {
                if (name.startsWith(SERVER_SETTING)) {
                    env.put(name.substring(SERVER_SETTING.length()), value);
                }
            });
            return env;
        }

        /** The three servers' instance ids (what is left of them after {@link #close} is removed by these). */
        List<String> instances() {
            return List.of(cold.instanceId(), pooled.instanceId(), seedAtClaim.instanceId());
        }

        @Override
        public void close() {
            cold.close();
            pooled.close();
            seedAtClaim.close();
        }
    }

    static String instanceOf(RunningServer server) {
        return server.instanceId();
    }

    static Map<String, String> agentFilter(RunningServer server, String agent) {
        return SandboxLabels.ofAgent(server.instanceId(), agent);
    }
}
