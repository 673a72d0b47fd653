package io.roboco.sandbox.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.provision.SourcePostgres;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.Project;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A project's seed against the real daemon: a clone of a real source database (another Postgres container loaded
 * with tables, a view, a function, a foreign key, rows, a foreign owner and a grant) gives the new sandbox that
 * schema owned by the agent, with data only when asked and capped, and the source's password nowhere; a SQL seed
 * runs as the agent; a bad script and an unreachable source are retryable invalid_state naming the cause, with no
 * container left.
 */
class ProjectSeedIT {
    private static final String INSTANCE =
            "it-seed-" + UUID.randomUUID().toString().substring(0, 8);
    private static final String SOURCE_PASSWORD = "canary-" + UUID.randomUUID();
    private static final EngineRegistry REGISTRY = EngineRegistry.defaults();
    private static final Map<String, String> environment = new ConcurrentHashMap<>();
    private static final InMemorySettingsStore store = new InMemorySettingsStore();
    private static ContainerRuntime runtime;
    private static SandboxPlugin plugin;
    private static SourcePostgres source;

    @BeforeAll
    static void start() throws Exception {
        runtime = LocalImages.requireDockerAndImages();
        source = SourcePostgres.of("roboco-sandbox/postgres:17", "shop_owner", "shop")
                .withPassword(SOURCE_PASSWORD)
                .labelled("seed-source")
                .start();
        try (Connection c = source.connect();
                Statement s = c.createStatement()) {
            s.execute("""
                    CREATE ROLE reporting;
                    CREATE TABLE customers (id int PRIMARY KEY, email text NOT NULL UNIQUE);
                    CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers (id), total numeric);
                    CREATE INDEX orders_customer_idx ON orders (customer_id);
                    CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 50;
                    CREATE FUNCTION order_total(c int) RETURNS numeric LANGUAGE sql STABLE AS 'SELECT sum(total) FROM orders WHERE customer_id = c';
                    INSERT INTO customers SELECT g, 'c' || g || '@shop.test' FROM generate_series(1, 10) g;
                    INSERT INTO orders SELECT g, 1 + g % 10, g * 10 FROM generate_series(1, 20) g;
                    GRANT SELECT ON customers TO reporting;
                    """);
        }
        environment.put("SHOP_DB_URL", source.url());
        environment.put("GONE_DB_URL", "postgresql://shop_owner:" + SOURCE_PASSWORD + "@127.0.0.1:1/shop");
        ProvisionSettings settings = ProvisionSettings.defaults(INSTANCE)
                .withImages(LocalImages.IMAGES)
                .withMajorImages(LocalImages.MAJOR_IMAGES);
        ServiceProvisioner provisioner =
                new ServiceProvisioner(runtime, settings, SecretSource.secure(), Clock.systemUTC(), environment::get);
        plugin = new SandboxPlugin(
                REGISTRY,
                new SandboxManager(REGISTRY, provisioner, Clock.systemUTC()),
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
        runtime.list(SandboxLabels.ofInstance(INSTANCE)).forEach(c -> runtime.remove(c.id()));
        if (source != null) {
            source.close();
        }
        runtime.close();
    }

    private static SandboxDecision request(String agent, Seed seed) throws InterruptedException {
        Project project = new Project(
                "p-" + agent,
                "Seeded",
                List.of("postgres"),
                Map.of(),
                Map.of("postgres", "17"),
                Map.of("postgres", seed));
        store.saveProject(project);
        store.saveAgent(new Agent(agent, "developer", project.id(), "task-1"));
        return plugin.requestSandbox(agent, null, Map.of());
    }

    private static Connection agentConnection(SandboxDecision decision) throws SQLException {
        assertThat(decision).as(String.valueOf(decision)).isInstanceOf(SandboxDecision.Granted.class);
        Map<String, String> env =
                ((SandboxDecision.Granted) decision).sandboxes().get(0).env();
        return DriverManager.getConnection(
                "jdbc:postgresql://" + env.get("ROBOCO_TEST_DB_HOST") + ":" + env.get("ROBOCO_TEST_DB_PORT") + "/"
                        + env.get("ROBOCO_TEST_DB_NAME"),
                env.get("ROBOCO_TEST_DB_USER"),
                env.get("ROBOCO_TEST_DB_PASSWORD"));
    }

    @Test
    void aCappedCloneGivesTheSourceSchemaOwnedByTheAgentWithAtMostNRowsAndNoSecretAnywhere() throws Exception {
        SandboxDecision decision = request("dev-clone", new Seed.Clone("SHOP_DB_URL", 3));
        try (Connection agent = agentConnection(decision);
                Statement s = agent.createStatement()) {
            assertThat(one(s, "SELECT count(*) FROM customers")).isEqualTo(3);
            assertThat(one(s, "SELECT count(*) FROM orders")).isBetween(0L, 3L);
            assertThat(one(s, "SELECT count(*) FROM pg_views WHERE viewname = 'big_orders'"))
                    .isEqualTo(1);
            assertThat(one(s, "SELECT count(*) FROM pg_proc WHERE proname = 'order_total'"))
                    .isEqualTo(1);
            assertThat(one(s, "SELECT count(*) FROM pg_constraint WHERE contype = 'f'"))
                    .as("the foreign key came (NOT VALID)")
                    .isEqualTo(1);
            assertThat(one(s, "SELECT count(*) FROM pg_indexes WHERE indexname = 'orders_customer_idx'"))
                    .isEqualTo(1);
            assertThat(one(
                            s,
                            "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace"
                                    + " AND pg_get_userbyid(relowner) <> current_user"))
                    .as("no foreign owners")
                    .isZero();
            assertThat(one(
                            s,
                            "SELECT count(*) FROM pg_proc WHERE pronamespace = 'public'::regnamespace"
                                    + " AND pg_get_userbyid(proowner) <> current_user"))
                    .isZero();
            assertThat(
                            one(
                                    s,
                                    "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relacl IS NOT NULL"))
                    .as("no grants copied")
                    .isZero();
        }
        assertThat(decision.toString()).doesNotContain(SOURCE_PASSWORD);
        for (AuditRecord r : store.recent(null, null, 100)) {
            assertThat(r.toString()).doesNotContain(SOURCE_PASSWORD);
        }
        String id = runtime.list(SandboxLabels.ofAgent(INSTANCE, "dev-clone"))
                .get(0)
                .id();
        assertThat(runtime.logTail(id, 500)).doesNotContain(SOURCE_PASSWORD);
    }

    @Test
    void aSchemaOnlyCloneHasNoRows() throws Exception {
        try (Connection agent = agentConnection(request("dev-schema", new Seed.Clone("SHOP_DB_URL", null)));
                Statement s = agent.createStatement()) {
            assertThat(one(s, "SELECT count(*) FROM customers")).isZero();
            assertThat(one(s, "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND convalidated"))
                    .isEqualTo(1);
        }
    }

    @Test
    void aSqlSeedRunsAsTheAgent() throws Exception {
        Seed sql = new Seed.Sql("CREATE TABLE notes (id serial PRIMARY KEY, body text DEFAULT 'a;b');\n"
                + "INSERT INTO notes (body) VALUES ('it''s; fine'), ($$x;y$$); -- a comment; with a semicolon\n");
        try (Connection agent = agentConnection(request("dev-sql", sql));
                Statement s = agent.createStatement()) {
            assertThat(one(s, "SELECT count(*) FROM notes")).isEqualTo(2);
            assertThat(
                            one(
                                    s,
                                    "SELECT count(*) FROM pg_class WHERE relname = 'notes' AND pg_get_userbyid(relowner) = current_user"))
                    .isEqualTo(1);
        }
    }

    @Test
    void badSqlIsARetryableInvalidStateNamingTheStatementWithNoContainerLeft() throws Exception {
        SandboxDecision decision =
                request("dev-bad", new Seed.Sql("CREATE TABLE a (id int);\nCREATE TABLE b (id nonsense_type);"));
        assertThat(decision).isInstanceOfSatisfying(SandboxDecision.InvalidState.class, s -> {
            assertThat(s.retryable()).isTrue();
            assertThat(s.reason())
                    .contains(
                            "seed failed", "statement 2 of 2", "CREATE TABLE b", "nonsense_type", "container removed");
        });
        assertThat(runtime.list(SandboxLabels.ofAgent(INSTANCE, "dev-bad"))).isEmpty();
    }

    @Test
    void anUnreachableSourceIsARetryableInvalidStateWithNoContainerLeft() throws Exception {
        SandboxDecision decision = request("dev-gone", new Seed.Clone("GONE_DB_URL", null));
        assertThat(decision).isInstanceOfSatisfying(SandboxDecision.InvalidState.class, s -> {
            assertThat(s.retryable()).isTrue();
            assertThat(s.reason())
                    .contains("clone from $GONE_DB_URL failed")
                    .doesNotContain(SOURCE_PASSWORD, "127.0.0.1", "port 1", "shop_owner");
        });
        assertThat(runtime.list(SandboxLabels.ofAgent(INSTANCE, "dev-gone"))).isEmpty();
        SandboxDecision missing = request("dev-noenv", new Seed.Clone("NOT_SET_DB_URL", null));
        assertThat(missing)
                .isInstanceOfSatisfying(
                        SandboxDecision.InvalidState.class,
                        s -> assertThat(s.reason()).contains("has no NOT_SET_DB_URL"));
        assertThat(runtime.list(SandboxLabels.ofAgent(INSTANCE, "dev-noenv"))).isEmpty();
    }

    private static long one(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
