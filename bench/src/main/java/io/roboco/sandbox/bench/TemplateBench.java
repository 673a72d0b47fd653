package io.roboco.sandbox.bench;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.store.JdbcSettingsStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code --only templates} (and part of a full run): a sandbox seeded from a 50 MB and from a 500 MB template, from its
 * physical copy (the stopped server's data directory) and from its dump, at cold start ({@code request_sandbox(template=…)},
 * no pool) and from the seeded pool (a claim of a container made ahead from the project's template seed). One server of
 * its own (physical copies on, a seeded pool of one container per seeded project, template caps raised for 500 MB, a
 * 15-minute exec timeout for the dump restores). The dump path is the same template with its physical copy file
 * removed, so both restore the same data. Every template project raises its memory limit: the data directory is on
 * tmpfs, which counts against the container's memory (512 MB by default).
 */
final class TemplateBench {
    /** Data set sizes, MB of database (pg_database_size), roughly. */
    static final List<Integer> SIZES_MB = List.of(50, 500);
    /** The caps of every template project's Postgres: 500 MB of data on tmpfs plus the server's own memory. */
    static final Map<String, Object> LIMITS = Map.of("postgres", Map.of("memory", "1536m", "data_size", "1g"));
    /** Bytes per generated row, table and indexes together (measured: the run reports the real size). */
    private static final long BYTES_PER_ROW = 175;

    final Map<String, Samples> samples = new LinkedHashMap<>();
    final Map<String, Object> sizes = new LinkedHashMap<>();
    private final Map<String, String> images;
    private final Bench.Options options;
    private final AtomicInteger agents = new AtomicInteger();
    private RunningServer server;
    private Api api;
    private ContainerRuntime docker;

    TemplateBench(Map<String, String> images, Bench.Options options) {
        this.images = images;
        this.options = options;
        for (int mb : SIZES_MB) {
            for (String path : List.of("physical", "dump")) {
                samples.put(key(mb, path, false), new Samples(key(mb, path, false)));
                samples.put(key(mb, path, true), new Samples(key(mb, path, true)));
            }
        }
    }

    /** {@code template_seed_500mb_physical_ms}, {@code template_seed_500mb_dump_pool_ms}, … */
    static String key(int mb, String path, boolean pool) {
        return "template_seed_" + mb + "mb_" + path + (pool ? "_pool" : "") + "_ms";
    }

    void run(Path state, ContainerRuntime docker) throws Exception {
        this.docker = docker;
        server = start(state.resolve("templates-bench"));
        api = new Api(server.port(), Bench.API, Bench.ADMIN);
        try {
            for (int mb : SIZES_MB) {
                prepare(mb);
            }
            awaitPools(); // the seeded projects' pools fill as their projects are saved
            int counted = options.warmup() > 1 ? 3 : 2;
            System.out.printf(
                    "--> templates: 1 warm-up (50 MB) + %d counted rounds; load average %s%n",
                    counted, Machine.loadAverage());
            cold(50, "physical", false);
            cold(50, "dump", false);
            for (int round = 1; round <= counted; round++) {
                StringBuilder line = new StringBuilder("--> templates round " + round + "/" + counted + ":");
                for (int mb : SIZES_MB) {
                    for (String path : List.of("physical", "dump")) {
                        line.append(' ')
                                .append(key(mb, path, false))
                                .append('=')
                                .append(fmt(cold(mb, path, true)));
                        line.append(' ').append(key(mb, path, true)).append('=').append(fmt(pool(mb, path)));
                    }
                }
                System.out.println(line);
            }
        } finally {
            String instance = server.instanceId();
            server.close();
            Bench.removeLabelled(docker, SandboxLabels.ofInstance(instance));
        }
    }

    /**
     * A source sandbox in project {@code src<mb>} filled to about {@code mb} MB, saved as template {@code t<mb>} (dump and
     * physical copy); its copies into {@code dump<mb>} (per call, the copy file removed: the dump path), {@code
     * pool<mb>} (the project's seed: the seeded pool from the copy) and {@code pooldump<mb>} (seed, copy removed).
     */
    @SuppressWarnings("unchecked")
    private void prepare(int mb) throws Exception {
        String src = "src" + mb;
        String template = "t" + mb;
        project(src, null);
        String agent = "bench-tpl-source-" + mb;
        api.working(agent, src);
        Map<String, String> env = env(api.requestSandbox(agent));
        long rows = mb * 1_000_000L / BYTES_PER_ROW;
        long t0 = System.nanoTime();
        long databaseBytes;
        try (Connection c = connect(env);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id bigint PRIMARY KEY, sku text NOT NULL, qty int NOT NULL,"
                    + " price numeric(10,2) NOT NULL, note text NOT NULL);"
                    + " INSERT INTO items SELECT g, 'sku-' || g, g % 97, (g % 10000) / 100.0,"
                    + " md5(g::text) || md5((g * 7)::text) FROM generate_series(1, " + rows + ") g;"
                    + " CREATE INDEX items_sku ON items (sku)");
            s.execute("ANALYZE");
            try (ResultSet r = s.executeQuery("SELECT pg_database_size(current_database())")) {
                r.next();
                databaseBytes = r.getLong(1);
            }
        }
        long filled = System.nanoTime();
        Map<String, Object> saved = (Map<String, Object>)
                api.verb(agent, "save_template", Map.of("name", template)).get("evidence");
        long savedAt = System.nanoTime();
        if (!(saved.get("physical_copy") instanceof Map<?, ?> copy)) {
            throw new IllegalStateException(
                    "template " + template + " has no physical copy: " + saved.get("physical_copy"));
        }
        api.release(agent);
        api.forget(agent);
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("rows", rows);
        figures.put("database_bytes", databaseBytes);
        figures.put("dump_bytes", saved.get("size_bytes"));
        figures.put("physical_copy_bytes", copy.get("size_bytes"));
        figures.put("fill_ms", Samples.round((filled - t0) / 1e6));
        figures.put("save_template_ms", Samples.round((savedAt - filled) / 1e6));
        sizes.put(mb + "mb", figures);
        System.out.printf(
                "--> template %s: %d rows, database %d MB, dump %s bytes, physical copy %s bytes; save_template (dump +"
                        + " copy) %.0f ms%n",
                template,
                rows,
                databaseBytes >> 20,
                saved.get("size_bytes"),
                copy.get("size_bytes"),
                (savedAt - filled) / 1e6);

        for (String to : List.of("dump" + mb, "pool" + mb, "pooldump" + mb)) {
            project(to, null);
            api.admin("POST", "/api/templates/" + template + "/copy", Map.of("from", src, "to", to));
            if (to.startsWith("dump") || to.startsWith("pooldump")) {
                Files.delete(state().resolve("templates").resolve(to).resolve(template + ".datadir.tar"));
            }
        }
        project("pool" + mb, template);
        project("pooldump" + mb, template);
    }

    /** A fresh agent's request_sandbox(template=…) at cold start (no pool on the path); release not timed. */
    private double cold(int mb, String path, boolean counted) throws Exception {
        awaitPools(); // no pool refill runs meanwhile
        String project = path.equals("physical") ? "src" + mb : "dump" + mb;
        String agent = "bench-tpl-cold-" + agents.incrementAndGet();
        api.working(agent, project);
        try {
            double ms = Bench.time(() -> api.verb(agent, "request_sandbox", Map.of("template", "t" + mb)));
            if (counted) {
                samples.get(key(mb, path, false)).add(ms);
            }
            return ms;
        } catch (RuntimeException e) {
            samples.get(key(mb, path, false)).failed();
            System.out.println("    " + key(mb, path, false) + " FAILED: " + e.getMessage());
            return Double.NaN;
        } finally {
            api.release(agent);
            api.forget(agent);
        }
    }

    /** A fresh agent's request_sandbox in a seeded project: a claim of its seeded pool's ready container. */
    private double pool(int mb, String path) throws Exception {
        awaitPools();
        String project = path.equals("physical") ? "pool" + mb : "pooldump" + mb;
        String agent = "bench-tpl-pool-" + agents.incrementAndGet();
        api.working(agent, project);
        try {
            double ms = Bench.time(() -> api.requestSandbox(agent));
            // the claimed container carries the seeded pool's label (a refill from a physical copy may be back in the
            // pool before the claim's answer, so the pool's idle count does not tell)
            if (!claimedFromSeededPool(agent)) {
                throw new IllegalStateException("the request did not claim from the seeded pool");
            }
            samples.get(key(mb, path, true)).add(ms);
            return ms;
        } catch (RuntimeException e) {
            samples.get(key(mb, path, true)).failed();
            System.out.println("    " + key(mb, path, true) + " FAILED: " + e.getMessage());
            return Double.NaN;
        } finally {
            api.release(agent);
            api.forget(agent);
        }
    }

    @SuppressWarnings("unchecked")
    private boolean claimedFromSeededPool(String agent) throws Exception {
        List<Map<String, Object>> sandboxes = (List<Map<String, Object>>)
                api.admin("GET", "/api/sandboxes?owner=" + agent, null).get("sandboxes");
        for (Map<String, Object> sandbox : sandboxes) {
            for (Map<String, Object> c : (List<Map<String, Object>>) sandbox.get("containers")) {
                String id = (String) c.get("container_id");
                if (docker.inspect(id)
                        .map(state -> state.labels().containsKey(SandboxLabels.POOL_SEED))
                        .orElse(false)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static int seededPools() {
        return SIZES_MB.size() * 2;
    }

    /** Until every seeded project's pool holds its ready container (a 500 MB dump refill takes minutes here). */
    private void awaitPools() throws InterruptedException {
        long t0 = System.nanoTime();
        while (server.poolIdle().getOrDefault(ServerConfig.SEEDED_KEY, 0) < seededPools()) {
            if (Bench.since(t0).toMinutes() > 20) {
                throw new IllegalStateException(
                        "the seeded pools did not fill within 20 minutes: " + server.poolIdle());
            }
            Thread.sleep(100);
        }
    }

    /** What goes into summary.json: the medians under their keys, ratios, the targets, the data sizes, the samples. */
    Map<String, Object> summary() {
        Map<String, Object> json = new LinkedHashMap<>();
        samples.forEach((key, s) -> json.put(key, Samples.round(s.median())));
        for (int mb : SIZES_MB) {
            json.put(
                    "template_seed_" + mb + "mb_physical_vs_dump",
                    ratio(
                            samples.get(key(mb, "physical", false)).median(),
                            samples.get(key(mb, "dump", false)).median()));
        }
        double physical = samples.get(key(500, "physical", false)).median();
        double ratio = ratio(physical, samples.get(key(500, "dump", false)).median());
        Map<String, Object> targets = new LinkedHashMap<>();
        targets.put("template_seed_500mb_physical_vs_dump", Map.of("limit", 0.333, "met", ratio <= 1.0 / 3));
        targets.put("template_seed_500mb_physical_ms", Map.of("limit", 2000, "met", physical <= 2000));
        json.put("template_targets", targets);
        json.put("template_data", sizes);
        Map<String, Object> contenders = new LinkedHashMap<>();
        samples.forEach((key, s) -> contenders.put(key, s.asJson()));
        json.put("template_contenders", contenders);
        return json;
    }

    void print() {
        System.out.println();
        System.out.printf("%-42s %4s %4s %9s %9s %9s%n", "template seed", "n", "fail", "median", "min", "max");
        samples.values()
                .forEach(s -> System.out.printf(
                        "%-42s %4d %4d %9.1f %9.1f %9.1f%n",
                        s.name(), s.count(), s.failures(), s.median(), s.min(), s.max()));
        Map<String, Object> json = summary();
        System.out.println("(ms to working credentials over HTTP; physical: from the template's data directory copy,"
                + " dump: psql replaying its dump; _pool: a claim of a container seeded ahead)");
        System.out.println("physical vs dump at cold start: 50 MB " + json.get("template_seed_50mb_physical_vs_dump")
                + " x, 500 MB " + json.get("template_seed_500mb_physical_vs_dump") + " x (target <= 0.333)");
        System.out.println("template data: " + sizes);
    }

    private void project(String id, String templateSeed) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", id);
        body.put("sandbox_services", List.of("postgres"));
        body.put("sandbox_limits", LIMITS);
        if (templateSeed != null) {
            body.put("sandbox_seed", Map.of("postgres", Map.of("template", templateSeed)));
        }
        api.admin("PUT", "/api/projects/" + id, body);
    }

    private Path stateDir;

    private Path state() {
        return stateDir;
    }

    /** Production wiring over the local images, with a seeded pool and the caps a 500 MB template needs. */
    private RunningServer start(Path dir) throws Exception {
        Files.createDirectories(dir);
        stateDir = dir;
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ROBOCO_SANDBOX_STATE_DIR", dir.toString());
        env.put("ROBOCO_SANDBOX_DB_ENABLED", "true");
        env.put("ROBOCO_SANDBOX_NETWORK", "host");
        env.put("ROBOCO_SANDBOX_API_TOKEN", Bench.API);
        env.put("ROBOCO_SANDBOX_ADMIN_TOKEN", Bench.ADMIN);
        env.put("ROBOCO_SANDBOX_READY_TIMEOUT", "300s");
        env.put("ROBOCO_SANDBOX_JANITOR_GRACE", "30m");
        env.put("ROBOCO_SANDBOX_READOPT", "false");
        env.put(ServerConfig.POOL_SEEDED, "1");
        env.put("ROBOCO_SANDBOX_TEMPLATE_PHYSICAL", "true");
        env.put("ROBOCO_SANDBOX_TEMPLATE_MAX_SIZE", "2g");
        env.put("ROBOCO_SANDBOX_TEMPLATES_PROJECT_SIZE", "8g");
        images.forEach((engine, image) -> env.put(ServerConfig.IMAGE_PREFIX + engine.toUpperCase(), image));
        ServerConfig config = ServerConfig.fromEnv(env).withPort(0);
        // A 500 MB dump restored through psql takes minutes on a loaded 2-core machine: past the 60 s default.
        return SandboxServer.start(
                config,
                DockerContainerRuntime.connect(null, Duration.ofMinutes(15)),
                EngineRegistry.defaults(),
                JdbcSettingsStore.embedded(dir),
                Clock.systemUTC());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> env(Map<String, Object> envelope) {
        List<Map<String, Object>> sandboxes =
                (List<Map<String, Object>>) ((Map<String, Object>) envelope.get("evidence")).get("sandboxes");
        return (Map<String, String>) sandboxes.get(0).get("env");
    }

    private static Connection connect(Map<String, String> env) throws Exception {
        return DriverManager.getConnection(
                "jdbc:postgresql://" + env.get("ROBOCO_TEST_DB_HOST") + ":" + env.get("ROBOCO_TEST_DB_PORT") + "/"
                        + env.get("ROBOCO_TEST_DB_NAME"),
                env.get("ROBOCO_TEST_DB_USER"),
                env.get("ROBOCO_TEST_DB_PASSWORD"));
    }

    private static double ratio(double a, double b) {
        return Math.round(a / b * 1000) / 1000.0;
    }

    private static String fmt(double ms) {
        return Double.isNaN(ms) ? "FAILED" : String.format("%.0fms", ms);
    }
}
