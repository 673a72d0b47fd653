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

    public static TestPostgres start() throws Exception {
        LocalImages.requireDockerAndImages().close();
        SecureRandom random = new SecureRandom();
        byte[] b = new byte[16];
        random.nextBytes(b);
        String password = HexFormat.of().formatHex(b);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String name = "store-it-" + HexFormat.of().formatHex(b, 0, 4);
        LocalImages.docker("run", "-d", "--rm", "--name", name, "--label", "roboco.sandbox.test=store", "--network", "host",
                "-e", "POSTGRES_USER=" + USER, "-e", "POSTGRES_PASSWORD=" + password, "-e", "POSTGRES_DB=" + USER,
                "--tmpfs", "/var/lib/postgresql/data", IMAGE,
                "postgres", "-c", "listen_addresses=127.0.0.1", "-c", "port=" + port, "-c", "fsync=off", "-c", "max_connections=200");
        TestPostgres pg = new TestPostgres(name, password, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            try (Connection c = pg.connect(USER)) {
                return pg;
            } catch (SQLException e) {
                last = e;
            }
            Thread.sleep(100);
        }
        pg.close();
        throw new IllegalStateException("postgres test container " + name + " not ready in 60 s: " + last);
    }

    /** A new, empty database; its JDBC URL. */
    public String newDatabase() throws SQLException {
        String db = "lifecycle_" + DATABASES.incrementAndGet();
        try (Connection c = connect(USER); Statement s = c.createStatement()) {
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
