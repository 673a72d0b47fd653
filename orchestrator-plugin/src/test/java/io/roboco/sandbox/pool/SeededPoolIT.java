package io.roboco.sandbox.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.plugin.OrchestratorHandle;
import io.roboco.sandbox.plugin.SandboxDecision;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServicePlan;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.provision.SourcePostgres;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.Project;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The seeded warm pool against the real daemon and Postgres: a seeded project's sandbox is a claim of a container that
 * was seeded before the request (its pool labels say whose seed it holds), every seeded object (schema, table,
 * sequence, view, function, foreign key, type) belongs to the agent, which can alter and drop them; no seeder role,
 * object or grant is left; a second agent gets its own credentials and cannot open the first's; a changed seed is
 * never served from the old pool; when the seeded pool has nothing ready, an unseeded pool container is claimed and
 * seeded at request time.
 */
class SeededPoolIT {
    private static final String INSTANCE =
            "it-seedpool-" + UUID.randomUUID().toString().substring(0, 8);
    private static final EngineRegistry REGISTRY = EngineRegistry.defaults();
    private static final int SEEDED = 2;
    private static final String SHOP_SEED = """
            CREATE SCHEMA app;
            CREATE TYPE app.mood AS ENUM ('ok', 'meh');
            CREATE SEQUENCE app.ticket_no START 100;
            CREATE TABLE app.customers (id int PRIMARY KEY, email text NOT NULL, mood app.mood DEFAULT 'ok');
            CREATE TABLE app.orders (id bigserial PRIMARY KEY, customer_id int NOT NULL REFERENCES app.customers (id),
                                     ticket int DEFAULT nextval('app.ticket_no'), total numeric);
            CREATE VIEW app.big_orders AS SELECT * FROM app.orders WHERE total > 50;
            CREATE FUNCTION app.order_total(c int) RETURNS numeric LANGUAGE sql STABLE
                AS 'SELECT coalesce(sum(total), 0) FROM app.orders WHERE customer_id = c';
            CREATE TABLE notes (id serial PRIMARY KEY, body text);
            INSERT INTO app.customers VALUES (1, 'a@shop.test'), (2, 'b@shop.test');
            INSERT INTO app.orders (customer_id, total) VALUES (1, 70), (2, 10);
            GRANT SELECT ON app.customers TO PUBLIC;
            ALTER DEFAULT PRIVILEGES IN SCHEMA app GRANT SELECT ON TABLES TO PUBLIC;
            """;
    private static final AtomicInteger agents = new AtomicInteger();
    private static final InMemorySettingsStore store = new InMemorySettingsStore();
    private static final String SOURCE_PASSWORD = "canary-" + UUID.randomUUID();
    private static final Map<String, String> environment = new ConcurrentHashMap<>();
    private static ContainerRuntime runtime;
    private static SandboxPlugin plugin;
    private static WarmPool pool;
    private static SourcePostgres source;

    @BeforeAll
    static void start() throws Exception {
        runtime = LocalImages.requireDockerAndImages();
        ProvisionSettings settings = ProvisionSettings.defaults(INSTANCE)
                .withImages(LocalImages.IMAGES)
                .withMajorImages(LocalImages.MAJOR_IMAGES)
                .withReadyTimeout(Duration.ofSeconds(90));
        ServiceProvisioner provisioner =
                new ServiceProvisioner(runtime, settings, SecretSource.secure(), Clock.systemUTC(), environment::get);
        pool = new WarmPool(REGISTRY, provisioner, new PoolSizes(Map.of("postgres", 1), SEEDED)).start();
        plugin = new SandboxPlugin(
                REGISTRY,
                new SandboxManager(REGISTRY, provisioner, Clock.systemUTC(), pool),
                store,
                true,
                OrchestratorHandle.running(),
                Clock.systemUTC());
    }

    @AfterAll
    static void cleanUp() {
        if (plugin != null) {
            plugin.close();
        }
        if (pool != null) {
            pool.close();
        }
        runtime.list(SandboxLabels.ofInstance(INSTANCE)).forEach(c -> runtime.remove(c.id()));
        if (source != null) {
            source.close();
        }
        runtime.close();
    }

    @Test
    void aSeededSandboxIsAClaimOfAContainerSeededBeforeTheRequestAndEverySeededObjectIsTheAgents() throws Exception {
        Project shop = project("shop-" + agents.incrementAndGet(), SHOP_SEED);
        Set<String> ready = awaitSeededPool(shop);

        long requested = System.currentTimeMillis() / 1000;
        String agent = "dev-" + agents.incrementAndGet();
        SandboxDecision.Granted granted = granted(request(agent, shop));
        ServiceInstance instance =
                plugin.sandboxOf(agent).orElseThrow().services().get("postgres");
        assertThat(granted.path()).isEqualTo("pool");
        assertThat(instance.fromPool()).isTrue();
        assertThat(ready)
                .as("the claimed container was one of the seeded pool's, ready before the request")
                .contains(instance.containerId());
        ContainerState container = runtime.inspect(instance.containerId()).orElseThrow();
        assertThat(container.labels())
                .containsEntry(SandboxLabels.POOL, "1")
                .containsEntry(SandboxLabels.POOL_SEED, shop.id() + ":" + digest(shop));
        assertThat(container.createdEpochSeconds()).isLessThanOrEqualTo(requested);

        Map<String, String> env = granted.sandboxes().get(0).env();
        assertThat(env.get("ROBOCO_TEST_DB_USER")).startsWith("agent_");
        try (Connection c = connect(env, env.get("ROBOCO_TEST_DB_USER"), env.get("ROBOCO_TEST_DB_PASSWORD"));
                Statement s = c.createStatement()) {
            assertThat(one(s, "SELECT count(*) FROM app.customers")).isEqualTo(2);
            assertThat(one(s, "SELECT count(*) FROM app.big_orders")).isEqualTo(1);
            assertThat(one(s, "SELECT app.order_total(1)")).isEqualTo(70);
            assertThat(
                            one(
                                    s,
                                    "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid = 'app.orders'::regclass"))
                    .isEqualTo(1);
            assertThat(one(s, "SELECT nextval('app.ticket_no')")).isGreaterThanOrEqualTo(100);
            assertThat(text(s, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()"))
                    .isEqualTo(env.get("ROBOCO_TEST_DB_USER"));
            String foreign = " AND pg_get_userbyid(%s) <> current_user";
            String mine = "(SELECT oid FROM pg_namespace WHERE nspname IN ('app', 'public'))";
            assertThat(one(
                            s,
                            "SELECT count(*) FROM pg_class WHERE relnamespace IN " + mine
                                    + foreign.formatted("relowner")))
                    .as("tables, views, sequences, indexes owned by the agent")
                    .isZero();
            assertThat(one(s, "SELECT count(*) FROM pg_class WHERE relnamespace IN " + mine))
                    .isGreaterThanOrEqualTo(8);
            assertThat(one(
                            s,
                            "SELECT count(*) FROM pg_proc WHERE pronamespace IN " + mine
                                    + foreign.formatted("proowner")))
                    .isZero();
            assertThat(one(
                            s,
                            "SELECT count(*) FROM pg_type WHERE typnamespace IN " + mine
                                    + foreign.formatted("typowner")))
                    .isZero();
            assertThat(text(s, "SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'app'"))
                    .isEqualTo(env.get("ROBOCO_TEST_DB_USER"));
            assertThat(one(s, "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'roboco\\_seeder\\_%'"))
                    .as("the seeder is gone")
                    .isZero();
            assertThat(one(s, "SELECT count(*) FROM pg_class WHERE relacl::text LIKE '%seeder%'"))
                    .isZero();
            assertThat(one(s, "SELECT count(*) FROM pg_default_acl"))
                    .as("the seeder's default privileges went with it")
                    .isZero();
            assertThat(text(s, "SELECT relacl::text FROM pg_class WHERE oid = 'app.customers'::regclass"))
                    .as("the seed's grant, re-granted by the agent")
                    .contains("=r/" + env.get("ROBOCO_TEST_DB_USER"));

            s.execute("ALTER TABLE app.customers ADD COLUMN name text");
            s.execute("ALTER SEQUENCE app.ticket_no RESTART 1");
            s.execute(
                    "CREATE OR REPLACE FUNCTION app.order_total(c int) RETURNS numeric LANGUAGE sql STABLE AS 'SELECT 0::numeric'");
            s.execute("DROP VIEW app.big_orders");
            s.execute("DROP FUNCTION app.order_total(int)");
            s.execute("DROP TABLE app.orders");
            s.execute("ALTER TYPE app.mood ADD VALUE 'great'");
            s.execute("DROP SCHEMA app CASCADE");
            s.execute("DROP TABLE notes");
        }
        plugin.releaseSandbox(agent, "i_am_done");
    }

    @Test
    void aProjectPrimedWhenSavedHasItsFirstSandboxFromTheSeededPool() throws Exception {
        Project primed = project("primed-" + agents.incrementAndGet(), "CREATE TABLE first_one (id int PRIMARY KEY);");
        assertThat(plugin.primeSeededPools(primed)).isEqualTo(1);
        eventually("the primed pool filled", () -> pool.idleSeeded(primed.id()) == SEEDED);

        String agent = "dev-" + agents.incrementAndGet();
        SandboxDecision.Granted first = granted(request(agent, primed));
        assertThat(first.path()).isEqualTo("pool");
        ServiceInstance instance =
                plugin.sandboxOf(agent).orElseThrow().services().get("postgres");
        assertThat(runtime.inspect(instance.containerId()).orElseThrow().labels())
                .containsEntry(SandboxLabels.POOL_SEED, primed.id() + ":" + digest(primed));
        try (Connection c = connect(first.sandboxes().get(0).env());
                Statement s = c.createStatement()) {
            assertThat(
                            one(
                                    s,
                                    "SELECT count(*) FROM pg_tables WHERE tablename = 'first_one' AND tableowner = current_user"))
                    .isEqualTo(1);
        }
        plugin.releaseSandbox(agent, "i_am_done");
    }

    @Test
    void aSecondClaimGetsItsOwnFreshCredentialsAndNeitherOpensTheOthersDatabase() throws Exception {
        Project shop = project("shop-" + agents.incrementAndGet(), SHOP_SEED);
        awaitSeededPool(shop);
        String first = "dev-" + agents.incrementAndGet();
        String second = "dev-" + agents.incrementAndGet();
        Map<String, String> a = granted(request(first, shop)).sandboxes().get(0).env();
        Map<String, String> b =
                granted(request(second, shop)).sandboxes().get(0).env();
        assertThat(plugin.sandboxOf(first)
                        .orElseThrow()
                        .services()
                        .get("postgres")
                        .fromPool())
                .isTrue();
        assertThat(plugin.sandboxOf(second)
                        .orElseThrow()
                        .services()
                        .get("postgres")
                        .fromPool())
                .isTrue();

        assertThat(a.get("ROBOCO_TEST_DB_USER")).isNotEqualTo(b.get("ROBOCO_TEST_DB_USER"));
        assertThat(a.get("ROBOCO_TEST_DB_PASSWORD")).isNotEqualTo(b.get("ROBOCO_TEST_DB_PASSWORD"));
        assertThat(a.get("ROBOCO_TEST_DB_NAME")).isNotEqualTo(b.get("ROBOCO_TEST_DB_NAME"));
        try (Connection c = connect(a, a.get("ROBOCO_TEST_DB_USER"), a.get("ROBOCO_TEST_DB_PASSWORD"));
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO notes (body) VALUES ('only in the first')");
        }
        try (Connection c = connect(b, b.get("ROBOCO_TEST_DB_USER"), b.get("ROBOCO_TEST_DB_PASSWORD"));
                Statement s = c.createStatement()) {
            assertThat(one(s, "SELECT count(*) FROM notes"))
                    .as("the second sandbox has its own seeded copy")
                    .isZero();
            assertThat(one(s, "SELECT count(*) FROM app.customers")).isEqualTo(2);
        }
        assertThatThrownBy(() -> connect(a, b.get("ROBOCO_TEST_DB_USER"), b.get("ROBOCO_TEST_DB_PASSWORD"))
                        .close())
                .isInstanceOf(SQLException.class);
        assertThatThrownBy(() -> connect(b, a.get("ROBOCO_TEST_DB_USER"), a.get("ROBOCO_TEST_DB_PASSWORD"))
                        .close())
                .isInstanceOf(SQLException.class);
        plugin.releaseSandbox(first, "i_am_done");
        plugin.releaseSandbox(second, "i_am_done");
    }

    @Test
    void aChangedSeedIsNeverServedFromTheOldPoolAndTheRequestInBetweenIsSeededAtRequestTime() throws Exception {
        Project blog = project("blog-" + agents.incrementAndGet(), "CREATE TABLE posts (id int PRIMARY KEY);");
        Set<String> old = awaitSeededPool(blog);
        assertThat(old).hasSize(SEEDED);

        Project changed = project(blog.id(), "CREATE TABLE articles (id int PRIMARY KEY, title text);");
        String agent = "dev-" + agents.incrementAndGet();
        SandboxDecision.Granted granted = granted(request(agent, changed));
        ServiceInstance instance =
                plugin.sandboxOf(agent).orElseThrow().services().get("postgres");
        assertThat(old).doesNotContain(instance.containerId());
        if (instance.fromPool()) {
            assertThat(runtime.inspect(instance.containerId()).orElseThrow().labels())
                    .as("an unseeded pool container, seeded at request time")
                    .doesNotContainKey(SandboxLabels.POOL_SEED);
        }
        try (Connection c = connect(granted.sandboxes().get(0).env());
                Statement s = c.createStatement()) {
            assertThat(one(s, "SELECT count(*) FROM pg_tables WHERE tablename = 'articles'"))
                    .isEqualTo(1);
            assertThat(one(s, "SELECT count(*) FROM pg_tables WHERE tablename = 'posts'"))
                    .isZero();
        }
        assertThat(runtime.list(Map.of(
                        SandboxLabels.INSTANCE, INSTANCE, SandboxLabels.POOL_SEED, blog.id() + ":" + digest(blog))))
                .as("the old seed's idle containers are removed")
                .isEmpty();
        plugin.releaseSandbox(agent, "i_am_done");

        Set<String> fresh = awaitSeededPool(changed);
        assertThat(fresh).doesNotContainAnyElementsOf(old);
        String next = "dev-" + agents.incrementAndGet();
        SandboxDecision.Granted pooled = granted(request(next, changed));
        assertThat(pooled.path()).isEqualTo("pool");
        try (Connection c = connect(pooled.sandboxes().get(0).env());
                Statement s = c.createStatement()) {
            assertThat(one(s, "SELECT count(*) FROM pg_tables WHERE tablename = 'articles'"))
                    .isEqualTo(1);
            assertThat(one(s, "SELECT count(*) FROM pg_tables WHERE tablename = 'posts'"))
                    .isZero();
        }
        plugin.releaseSandbox(next, "i_am_done");
    }

    @Test
    void aCloneSeedIsReadWhenThePoolContainerIsSeededAndItsSchemaIsTheAgentsWithCappedRows() throws Exception {
        source = SourcePostgres.of(LocalImages.IMAGES.get("postgres"), "shop_owner", "shop")
                .withPassword(SOURCE_PASSWORD)
                .labelled("pool-source")
                .start();
        Connection loaded = source.connect();
        try (Connection c = loaded;
                Statement s = c.createStatement()) {
            s.execute("""
                    CREATE TABLE customers (id int PRIMARY KEY, email text NOT NULL);
                    CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers (id));
                    CREATE VIEW order_count AS SELECT customer_id, count(*) FROM orders GROUP BY customer_id;
                    INSERT INTO customers SELECT g, 'c' || g FROM generate_series(1, 10) g;
                    INSERT INTO orders SELECT g, 1 + g % 10 FROM generate_series(1, 10) g;
                    """);
        }
        environment.put("SRC_DB_URL", source.url());
        Project cloned = new Project(
                "clone-" + agents.incrementAndGet(),
                "Cloned",
                List.of("postgres"),
                Map.of(),
                Map.of(),
                Map.of("postgres", new Seed.Clone("SRC_DB_URL", 2)));
        store.saveProject(cloned);
        awaitSeededPool(cloned);

        String agent = "dev-" + agents.incrementAndGet();
        SandboxDecision.Granted granted = granted(request(agent, cloned));
        assertThat(granted.path()).isEqualTo("pool");
        assertThat(granted.toString()).doesNotContain(SOURCE_PASSWORD);
        try (Connection c = connect(granted.sandboxes().get(0).env());
                Statement s = c.createStatement()) {
            assertThat(one(s, "SELECT count(*) FROM customers")).isEqualTo(2);
            assertThat(one(s, "SELECT count(*) FROM pg_views WHERE viewname = 'order_count'"))
                    .isEqualTo(1);
            assertThat(one(s, "SELECT count(*) FROM pg_constraint WHERE contype = 'f'"))
                    .isEqualTo(1);
            assertThat(one(
                            s,
                            "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace"
                                    + " AND pg_get_userbyid(relowner) <> current_user"))
                    .as("every cloned object the agent's")
                    .isZero();
            s.execute("DROP VIEW order_count");
            s.execute("DROP TABLE orders, customers");
        }
        plugin.releaseSandbox(agent, "i_am_done");
    }

    // --- helpers ---------------------------------------------------------------------------------

    private static Project project(String id, String sql) {
        Project project = new Project(
                id, "Seeded " + id, List.of("postgres"), Map.of(), Map.of(), Map.of("postgres", new Seed.Sql(sql)));
        store.saveProject(project);
        return project;
    }

    private static String digest(Project project) {
        return SeedRecipe.digestOf(new ServicePlan(
                REGISTRY.require("postgres"),
                plugin.manager().provisioner().settings().choose(REGISTRY.require("postgres"), null),
                Set.of(),
                project.seeds().get("postgres")));
    }

    private static SandboxDecision request(String agent, Project project) throws InterruptedException {
        store.saveAgent(new Agent(agent, "developer", project.id(), "task-1"));
        return plugin.requestSandbox(agent, null, Map.of());
    }

    /**
     * The project's seeded pool, full: the first request makes it (that sandbox starts cold and is seeded at request
     * time), then the pool fills in the background. Returns the ids of its ready containers.
     */
    private static Set<String> awaitSeededPool(Project project) throws Exception {
        if (pool.idleSeeded(project.id()) == 0) {
            String primer = "dev-" + agents.incrementAndGet();
            granted(request(primer, project));
            ServiceInstance first =
                    plugin.sandboxOf(primer).orElseThrow().services().get("postgres");
            assertThat(runtime.inspect(first.containerId()).orElseThrow().labels())
                    .as("no seeded pool yet: an unseeded pool container or a cold one, seeded at request time")
                    .doesNotContainKey(SandboxLabels.POOL_SEED);
            try (Connection c = connect(granted(plugin.requestSandbox(primer, null, Map.of()))
                            .sandboxes()
                            .get(0)
                            .env());
                    Statement s = c.createStatement()) {
                assertThat(one(
                                s,
                                "SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relnamespace <> 'pg_catalog'::regnamespace"
                                        + " AND relnamespace <> 'information_schema'::regnamespace"))
                        .as("seeded at request time")
                        .isPositive();
            }
            plugin.releaseSandbox(primer, "i_am_done");
        }
        eventually("the seeded pool of " + project.id() + " filled", () -> pool.idleSeeded(project.id()) == SEEDED);
        return runtime
                .list(Map.of(
                        SandboxLabels.INSTANCE,
                        INSTANCE,
                        SandboxLabels.POOL_SEED,
                        project.id() + ":" + digest(project)))
                .stream()
                .map(ContainerState::id)
                .collect(Collectors.toSet());
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("%s within 180 s", what).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static SandboxDecision.Granted granted(SandboxDecision decision) {
        assertThat(decision).as(String.valueOf(decision)).isInstanceOf(SandboxDecision.Granted.class);
        return (SandboxDecision.Granted) decision;
    }

    private static Connection connect(Map<String, String> env) throws SQLException {
        return connect(env, env.get("ROBOCO_TEST_DB_USER"), env.get("ROBOCO_TEST_DB_PASSWORD"));
    }

    private static Connection connect(Map<String, String> env, String user, String password) throws SQLException {
        return DriverManager.getConnection(
                "jdbc:postgresql://" + env.get("ROBOCO_TEST_DB_HOST") + ":" + env.get("ROBOCO_TEST_DB_PORT") + "/"
                        + env.get("ROBOCO_TEST_DB_NAME") + "?sslmode=disable&connectTimeout=5",
                user,
                password);
    }

    private static long one(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String text(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
