package io.roboco.sandbox.store;

import io.roboco.sandbox.provision.LocalImages;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
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
    private final String container;

    private TestPostgres(String container, String password, int port) {
        this.container = container;
        this.password = password;
        this.port = port;
    }

    /**
     * Starts one, on a free port. A port taken by another process between the pick and the container's bind makes
     * the container exit (it runs with {@code --rm}, so it is gone): that is tried again on a new port, 3 times in all.
     */
    public static TestPostgres start() throws Exception {
        LocalImages.requireDockerAndImages().close();
        IllegalStateException last = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                return startOnce();
            } catch (PortTaken e) {
                last = e;
                System.out.println("TestPostgres: " + e.getMessage() + "; starting again on a new port (attempt "
                        + (attempt + 1) + " of 3)");
            }
        }
        throw last;
    }

    private static TestPostgres startOnce() throws Exception {
        SecureRandom random = new SecureRandom();
        byte[] b = new byte[16];
        random.nextBytes(b);
        String password = HexFormat.of().formatHex(b);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String name = "store-it-" + HexFormat.of().formatHex(b, 0, 4);
        LocalImages.docker(
                "run",
                "-d",
                "--rm",
                "--name",
                name,
                "--label",
                "roboco.sandbox.test=store",
                "--network",
                "host",
                "-e",
                "POSTGRES_USER=" + USER,
                "-e",
                "POSTGRES_PASSWORD=" + password,
                "-e",
                "POSTGRES_DB=" + USER,
                "--tmpfs",
                "/var/lib/postgresql/data",
                IMAGE,
                "postgres",
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "port=" + port,
                "-c",
                "fsync=off",
                "-c",
                "max_connections=200");
        TestPostgres pg = new TestPostgres(name, password, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        SQLException last = null;
        for (int polls = 1; System.nanoTime() < deadline; polls++) {
            try (Connection c = pg.connect(USER)) {
                return pg;
            } catch (SQLException e) {
                last = e;
            }
            if (polls % 10 == 0
                    && LocalImages.docker("ps", "-q", "--filter", "name=^" + name + "$")
                            .isBlank()) {
                throw new PortTaken("postgres test container " + name + " exited before it was ready (port " + port
                        + " taken meanwhile?): " + last);
            }
            Thread.sleep(100);
        }
        pg.close();
        throw new IllegalStateException("postgres test container " + name + " not ready in 60 s: " + last);
    }

    private static final class PortTaken extends IllegalStateException {
        PortTaken(String message) {
            super(message);
        }
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
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + db;
    }

    private Connection connect(String db) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", USER);
        props.setProperty("password", password);
        props.setProperty("connectTimeout", "2");
        return DriverManager.getConnection(jdbcUrl(db), props);
    }

    @Override
    public void close() {
        try {
            LocalImages.docker("rm", "-f", container);
        } catch (RuntimeException e) {
            System.err.println("could not remove " + container + ": " + e.getMessage());
        }
    }
}
