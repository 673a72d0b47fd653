package io.roboco.sandbox.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.testkit.AgentSessions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;

/**
 * The engines and the Docker runtime together, against the real daemon and the local images:
 * provision → probe → connect with the returned env → write and read → remove → nothing left.
 */
class ServiceProvisionerIT {
    private static final String INSTANCE = "it-" + UUID.randomUUID().toString().substring(0, 8);
    private static final EngineRegistry REGISTRY = EngineRegistry.defaults();
    private static ContainerRuntime runtime;
    private static ServiceProvisioner provisioner;
    private static final List<String> readyMillis = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    static void connect() {
        runtime = LocalImages.requireDockerAndImages();
        provisioner = new ServiceProvisioner(
                runtime,
                ProvisionSettings.defaults(INSTANCE).withImages(LocalImages.IMAGES),
                SecretSource.secure(),
                Clock.systemUTC());
    }

    @AfterAll
    static void cleanUp() {
        runtime.list(SandboxLabels.ofInstance(INSTANCE)).forEach(c -> runtime.remove(c.id()));
        System.out.println("[figure] provision-to-ready per service (ms): " + readyMillis);
        runtime.close();
    }

    private ServiceInstance provision(String service, String agent, Set<String> features) throws ProvisionException {
        long start = System.nanoTime();
        ServiceInstance instance = provisioner.provision(
                Plans.of(provisioner.settings(), REGISTRY.require(service), features.toArray(String[]::new)),
                agent,
                "it-project");
        readyMillis.add(service + "=" + (System.nanoTime() - start) / 1_000_000);
        return instance;
    }

    /**
     * Issue 21: a cold start's proving login is held on as the sandbox's liveness session, so no second agent login
     * follows the answer; the checks after it run on that one session (Postgres: one agent backend, opened before the
     * answer; Mongo: the ping that proved the user is the held client's).
     */
    @Test
    void aColdStartsProvingLoginIsItsLivenessSession() throws Exception {
        Engine postgres = REGISTRY.require("postgres");
        ServiceInstance instance = provision("postgres", "dev-proving", Set.of());
        double answered = System.currentTimeMillis() / 1000.0; // the container shares the host's clock
        try {
            assertThat(provisioner.isLive(postgres, instance)).isTrue();
            assertThat(provisioner.isLive(postgres, instance)).isTrue();
            AgentSessions.assertOnlyOne(instance, "the proving login, held for liveness", answered, "the answer");
        } finally {
            removeAndExpectNothingLeft(instance, "dev-proving");
        }
    }

    private void removeAndExpectNothingLeft(ServiceInstance instance, String agent) {
        provisioner.removeQuietly(instance.containerId());
        assertThat(runtime.list(SandboxLabels.ofAgent(INSTANCE, agent))).isEmpty();
        assertThat(runtime.inspect(instance.containerId())).isEmpty();
    }

    private static Map<String, String> env(ServiceInstance instance) {
        Engine engine = REGISTRY.require(instance.service());
        return engine.env(instance.endpoint(), instance.credentials());
    }

    private static Connection jdbc(Map<String, String> env) throws SQLException {
        return DriverManager.getConnection(
                "jdbc:postgresql://" + env.get("ROBOCO_TEST_DB_HOST") + ":" + env.get("ROBOCO_TEST_DB_PORT") + "/"
                        + env.get("ROBOCO_TEST_DB_NAME"),
                env.get("ROBOCO_TEST_DB_USER"),
                env.get("ROBOCO_TEST_DB_PASSWORD"));
    }

    @Test
    void postgresSandboxWorksEndToEndWithAllowlistedExtensionsAndALeastPrivilegedRole() throws Exception {
        ServiceInstance pg = provision("postgres", "it-pg", Set.of("pg_trgm", "citext", "uuid-ossp", "postgis"));
        Map<String, String> env = env(pg);
        assertThat(env.get("ROBOCO_TEST_DB_URL")).startsWith("postgresql://" + env.get("ROBOCO_TEST_DB_USER") + ":");

        try (Connection c = jdbc(env);
                Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TABLE notes (id uuid PRIMARY KEY DEFAULT uuid_generate_v4(), body citext, at geometry(Point))");
            s.execute("INSERT INTO notes (body, at) VALUES ('Hello Sandbox', ST_MakePoint(1, 2))");
            try (ResultSet rs = s.executeQuery(
                    "SELECT body = 'hello sandbox', similarity(body::text, 'hello sandbx') > 0.3, ST_X(at) FROM notes")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getBoolean(1))
                        .as("citext compares case-insensitively")
                        .isTrue();
                assertThat(rs.getBoolean(2)).as("pg_trgm similarity").isTrue();
                assertThat(rs.getDouble(3)).isEqualTo(1.0);
            }
            try (ResultSet rs = s.executeQuery(
                    "SELECT rolsuper, rolcreaterole, rolcreatedb, rolreplication FROM pg_roles WHERE rolname = current_user")) {
                rs.next();
                assertThat(List.of(rs.getBoolean(1), rs.getBoolean(2), rs.getBoolean(3), rs.getBoolean(4)))
                        .containsOnly(false);
            }
            assertThatThrownBy(() -> s.execute("COPY (SELECT 1) TO PROGRAM 'id'"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("pg_execute_server_program");
        }
        removeAndExpectNothingLeft(pg, "it-pg");
    }

    @Test
    void vectorIsRefusedOnTheLocalImageWithTheFeatureAndImageNamedAndNothingLeftBehind() {
        assertThatThrownBy(() -> provision("postgres", "it-vector", Set.of("vector")))
                .isInstanceOf(ProvisionException.class)
                .hasMessageContaining("'vector'")
                .hasMessageContaining("roboco-sandbox/postgres:15")
                .hasMessageContaining("container removed")
                .matches(e -> !((ProvisionException) e).retryable());
        assertThat(runtime.list(SandboxLabels.ofAgent(INSTANCE, "it-vector"))).isEmpty();
    }

    private static ProtocolCommand command(String name) {
        return () -> SafeEncoder.encode(name);
    }

    @Test
    void redisSandboxServesSearchToTheAgentButRefusesAdministrativeCommands() throws Exception {
        ServiceInstance redis = provision("redis", "it-redis", Set.of("search"));
        Map<String, String> env = env(redis);

        try (Jedis jedis =
                new Jedis(env.get("ROBOCO_TEST_REDIS_HOST"), Integer.parseInt(env.get("ROBOCO_TEST_REDIS_PORT")))) {
            jedis.auth(env.get("ROBOCO_TEST_REDIS_USER"), env.get("ROBOCO_TEST_REDIS_PASSWORD"));
            jedis.set("greeting", "hello");
            assertThat(jedis.get("greeting")).isEqualTo("hello");
            Object created = jedis.sendCommand(command("FT.CREATE"), "idx", "SCHEMA", "title", "TEXT");
            assertThat(created).isNotNull();
            jedis.sendCommand(command("FT.ADD"), "idx", "doc1", "1.0", "FIELDS", "title", "sandboxes are throwaway");
            Object found = jedis.sendCommand(command("FT.SEARCH"), "idx", "throwaway");
            assertThat(((List<?>) found).get(0)).isEqualTo(1L);

            for (String[] forbidden : new String[][] {
                {"MODULE", "LOAD", "/tmp/x.so"}, {"CONFIG", "SET", "maxmemory", "1"}, {"DEBUG", "SLEEP", "0"}
            }) {
                String[] rest = Arrays.copyOfRange(forbidden, 1, forbidden.length);
                assertThatThrownBy(() -> jedis.sendCommand(command(forbidden[0]), rest))
                        .as(String.join(" ", forbidden))
                        .isInstanceOf(JedisDataException.class);
            }
        }
        removeAndExpectNothingLeft(redis, "it-redis");
    }

    @Test
    void mongoSandboxStoresAndReadsDocumentsThroughTheHandedOutUrl() throws Exception {
        ServiceInstance mongo = provision("mongo", "it-mongo", Set.of());
        Map<String, String> env = env(mongo);
        try (MongoClient client = MongoClients.create(env.get("ROBOCO_TEST_MONGO_URL"))) {
            MongoCollection<Document> notes =
                    client.getDatabase(env.get("ROBOCO_TEST_MONGO_NAME")).getCollection("notes");
            notes.insertOne(new Document("body", "hello"));
            assertThat(notes.find().first().getString("body")).isEqualTo("hello");
        }
        removeAndExpectNothingLeft(mongo, "it-mongo");
    }

    @Test
    void dockerInspectShowsIsolationAndTheAgentsPasswordAppearsNowhere() throws Exception {
        ServiceInstance pg = provision("postgres", "it-inspect", Set.of("pg_trgm"));
        String inspect = LocalImages.docker("inspect", pg.containerId());
        String logs = LocalImages.docker("logs", pg.containerId());
        String hostConfig = LocalImages.docker(
                "inspect",
                "-f",
                "{{json .HostConfig.Tmpfs}} {{.HostConfig.Memory}} {{.HostConfig.NanoCpus}} {{.HostConfig.PidsLimit}} "
                        + "{{json .HostConfig.SecurityOpt}} {{json .HostConfig.CapDrop}} {{.HostConfig.Privileged}} {{json .HostConfig.Binds}}",
                pg.containerId());

        assertThat(hostConfig)
                .contains("\"/var/lib/postgresql/data\"")
                .contains(" 536870912 1000000000 512 ")
                .contains("no-new-privileges")
                .contains("[\"ALL\"]")
                .contains(" false null");
        assertThat(inspect)
                .contains("\"roboco.sandbox\": \"1\"")
                .contains("\"roboco.sandbox.agent\": \"it-inspect\"")
                .contains("\"roboco.sandbox.service\": \"postgres\"")
                .contains("\"roboco.sandbox.project\": \"it-project\"")
                .contains("\"roboco.sandbox.instance\": \"" + INSTANCE + "\"")
                .contains("\"roboco.sandbox.created\"")
                .doesNotContain("docker.sock");
        assertThat(inspect)
                .as("agent password in inspect")
                .doesNotContain(pg.credentials().password());
        assertThat(logs)
                .as("agent password in logs")
                .doesNotContain(pg.credentials().password());
        assertThat(logs)
                .as("admin password in logs")
                .doesNotContain(pg.credentials().adminPassword());
        assertThat(inspect)
                .as("the sandbox's own admin secret is only in its env")
                .contains("POSTGRES_PASSWORD=" + pg.credentials().adminPassword());
        removeAndExpectNothingLeft(pg, "it-inspect");
    }
}
