package io.roboco.sandbox.engine.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.DockerCli;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineImages;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.Features;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.RunningSandbox;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL engine against a real container on 127.0.0.1 (host network, the sandbox limits and security
 * options), driven only through the {@link Engine} SPI: spec → docker run → readiness → prepareAgent →
 * activate → what the agent can and cannot do → liveness → removal. The image defaults to the locally
 * built test image; override with {@code -Droboco.it.image.postgres=...}.
 */
class PostgresEngineIT {
    static final String IMAGE = System.getProperty("roboco.it.image.postgres", "roboco-sandbox/postgres:15");

    @BeforeAll
    static void dockerAndImageArePresent() {
        EngineImages.requireLocal(IMAGE);
    }

    @Test
    void postgresAgentOwnsItsDatabaseUsesActivatedExtensionsAndIsNoSuperuser() throws Exception {
        PostgresEngine engine = new PostgresEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, IMAGE)) {
            System.out.println(sandbox);
            long t0 = System.nanoTime();
            engine.prepareAgent(sandbox.target);
            System.out.printf("postgres prepareAgent %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            for (String extension : List.of("pg_trgm", "citext", "uuid-ossp", "postgis")) {
                long t = System.nanoTime();
                engine.activate(Features.require(engine, extension), sandbox.exec, sandbox.credentials, sandbox.image);
                System.out.printf("postgres activate %s %d ms%n", extension, (System.nanoTime() - t) / 1_000_000);
            }
            engine.activate(
                    Features.require(engine, "citext"), sandbox.exec, sandbox.credentials, sandbox.image); // idempotent
            assertThatThrownBy(() -> engine.activate(
                            Features.require(engine, "vector"), sandbox.exec, sandbox.credentials, sandbox.image))
                    .isInstanceOf(FeatureUnavailableException.class)
                    .hasMessageContaining("'vector'")
                    .hasMessageContaining(sandbox.image);

            try (Connection agent = PostgresEngine.connect(sandbox.target, Login.AGENT);
                    Statement st = agent.createStatement()) {
                assertThat(single(st, "SELECT current_user")).isEqualTo(sandbox.credentials.user());
                assertThat(single(
                                st,
                                "SELECT rolsuper || ',' || rolcreaterole || ',' || rolcreatedb || ',' || rolreplication || ',' || rolbypassrls"
                                        + " FROM pg_roles WHERE rolname = current_user"))
                        .isEqualTo("false,false,false,false,false");
                assertThat(single(
                                st,
                                "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()"))
                        .isEqualTo(sandbox.credentials.user());
                assertThat(single(st, "SELECT similarity('sandbox', 'sandboxes') > 0.5"))
                        .isEqualTo("t");
                assertThat(single(st, "SELECT 'ABC'::citext = 'abc'")).isEqualTo("t");
                assertThat(single(st, "SELECT length(uuid_generate_v4()::text)"))
                        .isEqualTo("36");
                assertThat(single(st, "SELECT ST_AsText(ST_MakePoint(1, 2))")).isEqualTo("POINT(1 2)");
                st.execute("CREATE TABLE notes (id uuid PRIMARY KEY DEFAULT uuid_generate_v4(), body citext)");
                st.execute("INSERT INTO notes (body) VALUES ('Hello')");
                assertThat(single(st, "SELECT count(*) FROM notes WHERE body = 'hello'"))
                        .isEqualTo("1");
                st.execute("CREATE SCHEMA app");
                assertThatThrownBy(() -> st.execute("COPY (SELECT 1) TO PROGRAM 'id'"))
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("must be superuser");
                assertThatThrownBy(() -> st.execute("CREATE EXTENSION plpython3u"))
                        .isInstanceOf(SQLException.class);
                assertThatThrownBy(() -> st.execute("ALTER ROLE " + sandbox.credentials.user() + " SUPERUSER"))
                        .isInstanceOf(SQLException.class);
                assertThatThrownBy(() -> st.execute("CREATE ROLE other")).isInstanceOf(SQLException.class);
                assertThatThrownBy(() -> single(st, "SELECT pg_read_file('/etc/passwd')"))
                        .isInstanceOf(SQLException.class);
            }
            try (Connection admin = PostgresEngine.connect(sandbox.target, Login.ADMIN);
                    Statement st = admin.createStatement()) {
                assertThat(single(
                                st,
                                "SELECT rolpassword FROM pg_authid WHERE rolname = '" + sandbox.credentials.user()
                                        + "'"))
                        .startsWith("SCRAM-SHA-256$4096:");
            }

            long t1 = System.nanoTime();
            engine.liveness().check(sandbox.target);
            System.out.printf("postgres liveness %d ms%n", (System.nanoTime() - t1) / 1_000_000);
            assertThatThrownBy(() -> engine.liveness()
                            .check(sandbox.withAgentPassword("wrong" + sandbox.credentials.password())))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("password authentication failed");
            assertThat(DockerCli.inspect(sandbox.id)).doesNotContain(sandbox.credentials.password());
        }
    }

    private static String single(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
