package io.roboco.sandbox.store;

import io.roboco.sandbox.provision.SourcePostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A throwaway PostgreSQL 15 server for store tests: the local image in a container the test starts
 * (host network, 127.0.0.1 only, tmpfs, label {@code roboco.sandbox.test=store}), one fresh database per call
 * to {@link #newDatabase()}. Fails (does not skip) without Docker or the image.
 */
public final class TestPostgres implements AutoCloseable {
    public static final String IMAGE = "roboco-sandbox/postgres:15";
    public static final String USER = "store_it";
    private static final AtomicInteger DATABASES = new AtomicInteger();

    public final String password;
    public final int port;
    private final SourcePostgres server;

    private TestPostgres(SourcePostgres server) {
        this.server = server;
        this.password = server.password;
        this.port = server.port;
    }

    /** Starts one, on a free port (see {@link SourcePostgres}). */
    public static TestPostgres start() throws Exception {
        return new TestPostgres(SourcePostgres.of(IMAGE, USER, USER)
                .labelled("store")
                .withDataSize(null)
                .with("max_connections=200")
                .start());
    }

    /** A store on {@code url} (one of {@link #newDatabase()}'s) as this server's user. */
    public JdbcSettingsStore openStore(String url) {
        return JdbcSettingsStore.open(url, USER, password);
    }

    /**
     * One server for a test class, removed after it:
     * {@code @RegisterExtension static final TestPostgres.PerClass POSTGRES = TestPostgres.perClass();}.
     */
    public static PerClass perClass() {
        return new PerClass();
    }

    public static final class PerClass implements BeforeAllCallback, AfterAllCallback {
        private TestPostgres server;

        private PerClass() {}

        @Override
        public void beforeAll(ExtensionContext context) throws Exception {
            server = start();
        }

        @Override
        public void afterAll(ExtensionContext context) {
            if (server != null) {
                server.close();
            }
        }

        public TestPostgres server() {
            if (server == null) {
                throw new IllegalStateException(
                        "register TestPostgres.perClass() as a static @RegisterExtension field");
            }
            return server;
        }
    }

    /** A new, empty database; its JDBC URL. */
    public String newDatabase() throws SQLException {
        String db = "lifecycle_" + DATABASES.incrementAndGet();
        try (Connection c = connect(USER);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
        return jdbcUrl(db);
    }

    public String jdbcUrl(String db) {
        return server.jdbcUrl(db);
    }

    private Connection connect(String db) throws SQLException {
        return server.connect(db);
    }

    @Override
    public void close() {
        server.close();
    }
}
