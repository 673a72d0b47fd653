package io.roboco.sandbox.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.pool.PoolSizes;
import io.roboco.sandbox.pool.WarmPool;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.Plans;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.Project;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Postgres majors side by side against the real daemon: a project on 17 gets pgvector and runs a similarity
 * query as the agent; the same ask on 15 is refused naming 17 with nothing started; the warm pool keeps
 * containers per major.
 */
class PostgresMajorsIT {
    private static final String INSTANCE =
            "it-majors-" + UUID.randomUUID().toString().substring(0, 8);
    private static final EngineRegistry REGISTRY = EngineRegistry.defaults();
    private static ContainerRuntime runtime;
    private static ProvisionSettings settings;
    private static final InMemorySettingsStore store = new InMemorySettingsStore();
    private static SandboxPlugin plugin;

    @BeforeAll
    static void start() {
        runtime = LocalImages.requireDockerAndImages();
        settings = ProvisionSettings.defaults(INSTANCE)
                .withImages(LocalImages.IMAGES)
                .withMajorImages(LocalImages.MAJOR_IMAGES);
        ServiceProvisioner provisioner =
                new ServiceProvisioner(runtime, settings, SecretSource.secure(), Clock.systemUTC());
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
        runtime.close();
    }

    private static SandboxDecision request(String agent, Project project, Map<String, List<String>> perCall)
            throws InterruptedException {
        store.saveProject(project);
        store.saveAgent(new Agent(agent, "developer", project.id(), "task-1"));
        return plugin.requestSandbox(agent, null, perCall);
    }

    @Test
    void aProjectOn17RunsAVectorSimilarityQueryAsTheAgent() throws Exception {
        Project on17 = new Project("vectors", "Vectors", List.of("postgres"), Map.of(), Map.of("postgres", "17"));
        SandboxDecision decision = request("dev-17", on17, Map.of("postgres", List.of("vector")));

        assertThat(decision).isInstanceOf(SandboxDecision.Granted.class);
        SandboxDecision.Grant grant =
                ((SandboxDecision.Granted) decision).sandboxes().get(0);
        assertThat(grant.features()).containsExactly("vector");
        Map<String, String> env = grant.env();
        try (Connection c = DriverManager.getConnection(
                        "jdbc:" + jdbcUrl(env), env.get("ROBOCO_TEST_DB_USER"), env.get("ROBOCO_TEST_DB_PASSWORD"));
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SHOW server_version_num")) {
                rs.next();
                assertThat(rs.getString(1)).startsWith("17");
            }
            s.execute("CREATE TABLE items (id int PRIMARY KEY, embedding vector(3))");
            s.execute(
                    "INSERT INTO items VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0,0,1]'), (4, '[1,1,0]'), (5, '[0.9,0.1,0]')");
            List<Integer> nearest = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT id FROM items ORDER BY embedding <-> '[1,0,0]' LIMIT 3")) {
                while (rs.next()) {
                    nearest.add(rs.getInt(1));
                }
            }
            assertThat(nearest).containsExactly(1, 5, 4);
            try (ResultSet rs = s.executeQuery(
                    "SELECT pg_get_userbyid(relowner) = current_user FROM pg_class WHERE relname = 'items'")) {
                rs.next();
                assertThat(rs.getBoolean(1)).as("the agent owns its table").isTrue();
            }
        }
        ServiceInstance instance =
                plugin.sandboxOf("dev-17").orElseThrow().services().get("postgres");
        assertThat(instance.major()).isEqualTo("17");
        assertThat(instance.image()).isEqualTo("roboco-sandbox/postgres:17");
        assertThat(runtime.list(SandboxLabels.ofAgent(INSTANCE, "dev-17")))
                .singleElement()
                .satisfies(c -> assertThat(c.labels()).containsEntry(SandboxLabels.MAJOR, "17"));
        plugin.releaseSandbox("dev-17", "i_am_done");
    }

    @Test
    void vectorOnA15ProjectIsRefusedNaming17WithNothingLeftBehind() throws Exception {
        Project on15 = new Project("legacy", "Legacy", List.of("postgres"), Map.of(), Map.of("postgres", "15"));
        SandboxDecision decision = request("dev-15", on15, Map.of("postgres", List.of("vector")));

        assertThat(decision).isInstanceOfSatisfying(SandboxDecision.Refused.class, r -> {
            assertThat(r.retryable()).isFalse();
            assertThat(r.reason()).contains("'vector'", "PostgreSQL 15", "17");
        });
        assertThat(runtime.list(SandboxLabels.ofAgent(INSTANCE, "dev-15"))).isEmpty();
        assertThat(plugin.sandboxOf("dev-15")).isEmpty();
    }

    @Test
    void theWarmPoolKeepsContainersPerMajor() throws Exception {
        ServiceProvisioner provisioner =
                new ServiceProvisioner(runtime, settings, SecretSource.secure(), Clock.systemUTC());
        try (WarmPool pool = new WarmPool(REGISTRY, provisioner, new PoolSizes(Map.of("postgres:17", 1))).start()) {
            Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
            while (pool.idle("postgres:17") < 1) {
                assertThat(Instant.now())
                        .as("a 17 pool container ready within 60 s")
                        .isBefore(deadline);
                Thread.sleep(50);
            }
            assertThat(pool.idle("postgres"))
                    .as("the default image (15) keeps no pool")
                    .isZero();
            assertThat(pool.claim(Plans.onMajor(settings, REGISTRY.require("postgres"), "15"), "dev-pool-15"))
                    .isEmpty();

            ServiceInstance claimed = pool.claim(
                            Plans.onMajor(settings, REGISTRY.require("postgres"), "17", "vector"), "dev-pool-17")
                    .orElseThrow();
            assertThat(claimed.major()).isEqualTo("17");
            assertThat(claimed.features()).containsExactly("vector");
            Map<String, String> env = REGISTRY.require("postgres").env(claimed.endpoint(), claimed.credentials());
            try (Connection c = DriverManager.getConnection(
                            "jdbc:" + jdbcUrl(env),
                            env.get("ROBOCO_TEST_DB_USER"),
                            env.get("ROBOCO_TEST_DB_PASSWORD"));
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT '[1,2]'::vector <-> '[1,3]'::vector")) {
                rs.next();
                assertThat(rs.getDouble(1)).isEqualTo(1.0);
            }
            provisioner.removeQuietly(claimed.containerId());
        }
    }

    private static String jdbcUrl(Map<String, String> env) {
        return "postgresql://" + env.get("ROBOCO_TEST_DB_HOST") + ":" + env.get("ROBOCO_TEST_DB_PORT") + "/"
                + env.get("ROBOCO_TEST_DB_NAME");
    }
}
