package io.roboco.sandbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;

/**
 * Each engine against a real container on 127.0.0.1 (host network, the sandbox limits and security
 * options), driven only through the {@link Engine} SPI: spec → docker run → readiness → prepareAgent →
 * activate → what the agent can and cannot do → liveness → removal. Images default to the locally
 * built test images; override with {@code -Droboco.it.image.<engine>=...}.
 *
 * <p>The Mongo image is mongo-java-server, which has no authentication: that test proves the
 * wire-level flow and the documented fallback, not credential enforcement.
 */
class EnginesIT {
    static final String POSTGRES = System.getProperty("roboco.it.image.postgres", "roboco-sandbox/postgres:15");
    static final String REDIS = System.getProperty("roboco.it.image.redis", "roboco-sandbox/redis:7");
    static final String MONGO = System.getProperty("roboco.it.image.mongo", "roboco-sandbox/mongo-compat:1");

    @BeforeAll
    static void dockerAndImagesArePresent() {
        ExecResult version = DockerCli.docker(List.of("docker", "version", "-f", "{{.Server.Version}}"), java.util.Map.of(), 20);
        assertThat(version.ok()).as("Docker daemon reachable (the ITs need it): %s", version.output()).isTrue();
        for (String image : List.of(POSTGRES, REDIS, MONGO)) {
            assertThat(DockerCli.imageExists(image)).as("image %s is built locally (scripts build it; nothing can be pulled here)", image).isTrue();
        }
    }

    @Test
    void postgresAgentOwnsItsDatabaseUsesActivatedExtensionsAndIsNoSuperuser() throws Exception {
        PostgresEngine engine = new PostgresEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, POSTGRES)) {
            System.out.println(sandbox);
            long t0 = System.nanoTime();
            engine.prepareAgent(sandbox.target);
            System.out.printf("postgres prepareAgent %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            for (String extension : List.of("pg_trgm", "citext", "uuid-ossp", "postgis")) {
                long t = System.nanoTime();
                engine.activate(extension, sandbox.exec, sandbox.credentials, sandbox.image);
                System.out.printf("postgres activate %s %d ms%n", extension, (System.nanoTime() - t) / 1_000_000);
            }
            engine.activate("citext", sandbox.exec, sandbox.credentials, sandbox.image);   // idempotent
            assertThatThrownBy(() -> engine.activate("vector", sandbox.exec, sandbox.credentials, sandbox.image))
                    .isInstanceOf(FeatureUnavailableException.class)
                    .hasMessageContaining("'vector'").hasMessageContaining(sandbox.image);

            try (Connection agent = PostgresEngine.connect(sandbox.target, Login.AGENT); Statement st = agent.createStatement()) {
                assertThat(single(st, "SELECT current_user")).isEqualTo(sandbox.credentials.user());
                assertThat(single(st, "SELECT rolsuper || ',' || rolcreaterole || ',' || rolcreatedb || ',' || rolreplication || ',' || rolbypassrls"
                        + " FROM pg_roles WHERE rolname = current_user")).isEqualTo("false,false,false,false,false");
                assertThat(single(st, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()"))
                        .isEqualTo(sandbox.credentials.user());
                assertThat(single(st, "SELECT similarity('sandbox', 'sandboxes') > 0.5")).isEqualTo("t");
                assertThat(single(st, "SELECT 'ABC'::citext = 'abc'")).isEqualTo("t");
                assertThat(single(st, "SELECT length(uuid_generate_v4()::text)")).isEqualTo("36");
                assertThat(single(st, "SELECT ST_AsText(ST_MakePoint(1, 2))")).isEqualTo("POINT(1 2)");
                st.execute("CREATE TABLE notes (id uuid PRIMARY KEY DEFAULT uuid_generate_v4(), body citext)");
                st.execute("INSERT INTO notes (body) VALUES ('Hello')");
                assertThat(single(st, "SELECT count(*) FROM notes WHERE body = 'hello'")).isEqualTo("1");
                st.execute("CREATE SCHEMA app");
                assertThatThrownBy(() -> st.execute("COPY (SELECT 1) TO PROGRAM 'id'"))
                        .isInstanceOf(SQLException.class).hasMessageContaining("must be superuser");
                assertThatThrownBy(() -> st.execute("CREATE EXTENSION plpython3u")).isInstanceOf(SQLException.class);
                assertThatThrownBy(() -> st.execute("ALTER ROLE " + sandbox.credentials.user() + " SUPERUSER"))
                        .isInstanceOf(SQLException.class);
                assertThatThrownBy(() -> st.execute("CREATE ROLE other")).isInstanceOf(SQLException.class);
                assertThatThrownBy(() -> single(st, "SELECT pg_read_file('/etc/passwd')")).isInstanceOf(SQLException.class);
            }
            try (Connection admin = PostgresEngine.connect(sandbox.target, Login.ADMIN); Statement st = admin.createStatement()) {
                assertThat(single(st, "SELECT rolpassword FROM pg_authid WHERE rolname = '" + sandbox.credentials.user() + "'"))
                        .startsWith("SCRAM-SHA-256$4096:");
            }

            long t1 = System.nanoTime();
            engine.liveness().check(sandbox.target);
            System.out.printf("postgres liveness %d ms%n", (System.nanoTime() - t1) / 1_000_000);
            assertThatThrownBy(() -> engine.liveness().check(sandbox.withAgentPassword("wrong" + sandbox.credentials.password())))
                    .isInstanceOf(SQLException.class).hasMessageContaining("password authentication failed");
            assertThat(DockerCli.inspect(sandbox.id)).doesNotContain(sandbox.credentials.password());
        }
    }

    @Test
    void redisAgentUsesDataAndSearchCommandsButNoAdministration() throws Exception {
        RedisEngine engine = new RedisEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, REDIS)) {
            System.out.println(sandbox);
            assertThat(DockerCli.exec(sandbox.id).exec(List.of("sh", "-c", "grep '^Uid:' /proc/1/status")).stdout())
                    .as("redis-server runs as a non-root user").doesNotMatch("(?s)Uid:\\s+0\\s.*");
            try (Jedis admin = RedisEngine.connect(sandbox.target, Login.ADMIN)) {
                assertThat(admin.configGet("save")).containsEntry("save", "");
                assertThat(admin.configGet("appendonly")).containsEntry("appendonly", "no");
                assertThat(admin.configGet("port")).containsEntry("port", Integer.toString(sandbox.spec.port()));
            }
            long t0 = System.nanoTime();
            engine.prepareAgent(sandbox.target);
            System.out.printf("redis prepareAgent %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            long t1 = System.nanoTime();
            engine.activate("search", sandbox.exec, sandbox.credentials, sandbox.image);
            System.out.printf("redis activate search %d ms%n", (System.nanoTime() - t1) / 1_000_000);
            long t2 = System.nanoTime();
            engine.activate("search", sandbox.exec, sandbox.credentials, sandbox.image);   // now a no-op
            System.out.printf("redis activate search again (no-op) %d ms%n", (System.nanoTime() - t2) / 1_000_000);
            for (String missing : List.of("json", "bloom")) {
                assertThatThrownBy(() -> engine.activate(missing, sandbox.exec, sandbox.credentials, sandbox.image))
                        .isInstanceOf(FeatureUnavailableException.class).hasMessageContaining("'" + missing + "'");
            }

            try (Jedis agent = RedisEngine.connect(sandbox.target, Login.AGENT)) {
                agent.set("k", "v");
                assertThat(agent.get("k")).isEqualTo("v");
                assertThat(agent.keys("*")).contains("k");
                agent.hset("doc:1", "title", "hello sandbox");
                command(agent, "FT.CREATE", "idx", "SCHEMA", "title", "TEXT");
                command(agent, "FT.ADD", "idx", "doc:2", "1.0", "FIELDS", "title", "hello world");
                Object found = command(agent, "FT.SEARCH", "idx", "hello");
                assertThat(found).asString().startsWith("[1");
                assertThat(agent.flushDB()).isEqualTo("OK");
                for (String[] denied : new String[][] {
                        {"MODULE", "LOAD", "/usr/lib/redis/modules/redisearch.so"}, {"MODULE", "LIST"},
                        {"CONFIG", "SET", "dir", "/tmp"}, {"CONFIG", "GET", "requirepass"}, {"DEBUG", "SLEEP", "0"},
                        {"SHUTDOWN", "NOSAVE"}, {"ACL", "SETUSER", "x", "on", "+@all"}, {"ACL", "LIST"}, {"MONITOR"},
                        {"REPLICAOF", "127.0.0.1", "1"}, {"SAVE"}, {"BGSAVE"}, {"FAILOVER"}, {"CLIENT", "KILL", "ID", "1"}}) {
                    assertThatThrownBy(() -> command(agent, denied))
                            .as(String.join(" ", denied)).isInstanceOf(JedisDataException.class)
                            .message().matches(m -> m.startsWith("NOPERM") || m.contains("command not allowed"), "NOPERM or not allowed");
                }
            }
            long t3 = System.nanoTime();
            engine.liveness().check(sandbox.target);
            System.out.printf("redis liveness %d ms%n", (System.nanoTime() - t3) / 1_000_000);
            assertThatThrownBy(() -> engine.liveness().check(sandbox.withAgentPassword("wrong" + sandbox.credentials.password())))
                    .hasMessageContaining("WRONGPASS");
            String inspect = DockerCli.inspect(sandbox.id);
            assertThat(inspect).doesNotContain(sandbox.credentials.password());
            assertThat(inspect.replaceAll("\"REDIS_ADMIN_PASSWORD=[A-Za-z0-9]+\"", "")).doesNotContain(sandbox.credentials.adminPassword());
        }
    }

    @Test
    void mongoStandInAnswersTheProbesThroughTheDocumentedNoAuthFallback() throws Exception {
        MongoEngine engine = new MongoEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, MONGO)) {
            System.out.println(sandbox);
            long t0 = System.nanoTime();
            engine.prepareAgent(sandbox.target);
            System.out.printf("mongo prepareAgent %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            String db = sandbox.credentials.database();
            MongoSessions.run(sandbox.target, Login.AGENT, db, new Document("insert", "notes").append("documents", List.of(new Document("body", "hello"))));
            Document found = MongoSessions.run(sandbox.target, Login.AGENT, db, new Document("find", "notes"));
            assertThat(found.toJson()).contains("hello");
            // The stand-in logs unknown commands verbatim: no createUser (with the password) is sent to it.
            assertThat(DockerCli.logTail(sandbox.id)).doesNotContain(sandbox.credentials.password());
            long t1 = System.nanoTime();
            engine.liveness().check(sandbox.target);
            System.out.printf("mongo liveness %d ms%n", (System.nanoTime() - t1) / 1_000_000);
            assertThatCode(() -> engine.activate("search", sandbox.exec, sandbox.credentials, sandbox.image))
                    .isInstanceOf(UnknownNameException.class);
        }
    }

    private static String single(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static Object command(Jedis jedis, String... args) {
        ProtocolCommand name = () -> SafeEncoder.encode(args[0]);
        Object reply = jedis.sendCommand(name, java.util.Arrays.copyOfRange(args, 1, args.length));
        return render(reply);
    }

    private static Object render(Object reply) {
        if (reply instanceof byte[] bytes) {
            return SafeEncoder.encode(bytes);
        }
        if (reply instanceof List<?> list) {
            return list.stream().map(EnginesIT::render).toList();
        }
        return reply;
    }
}
