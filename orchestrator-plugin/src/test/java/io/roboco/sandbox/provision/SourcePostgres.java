package io.roboco.sandbox.provision;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server a test stands up beside the product: a clone seed's source, a settings store's database. The
 * local image in a container of its own (host network, 127.0.0.1 only, a tmpfs data directory, {@code fsync=off},
 * removed when it stops), on a free port, ready when {@link #start} returns. Fails (does not skip) without Docker or
 * the image.
 *
 * <pre>{@code
 * try (SourcePostgres shop = SourcePostgres.of("roboco-sandbox/postgres:17", "shop_owner", "shop").start()) {
 *     env.put("SHOP_DB_URL", shop.url());
 * }
 * }</pre>
 */
public final class SourcePostgres implements AutoCloseable {
    private static final int ATTEMPTS = 3;

    public final String image;
    public final String user;
    public final String database;
    public final String password;
    public final int port;
    public final String container;

    private SourcePostgres(String image, String user, String database, String password, int port, String container) {
        this.image = image;
        this.user = user;
        this.database = database;
        this.password = password;
        this.port = port;
        this.container = container;
    }

    /** What to start: see {@link Spec#start}. */
    public static Spec of(String image, String user, String database) {
        return new Spec(image, user, database, randomPassword(), "source", "256m", List.of());
    }

    /** What {@link #of} starts: a password of the test's (a canary) or a random one, a label, a data size, settings. */
    public record Spec(
            String image,
            String user,
            String database,
            String password,
            String purpose,
            String dataSize,
            List<String> settings) {
        public Spec withPassword(String value) {
            return new Spec(image, user, database, value, purpose, dataSize, settings);
        }

        /** The data directory's tmpfs size ({@code 256m} unless said; {@code null}: the kernel's default, half the RAM). */
        public Spec withDataSize(String value) {
            return new Spec(image, user, database, password, purpose, value, settings);
        }

        /** The value of the container's {@code roboco.sandbox.test} label (what it is for, for a stray's reader). */
        public Spec labelled(String value) {
            return new Spec(image, user, database, password, value, dataSize, settings);
        }

        /** A server setting such as {@code max_connections=200} (passed as {@code -c}). */
        public Spec with(String setting) {
            List<String> more = new ArrayList<>(settings);
            more.add(setting);
            return new Spec(image, user, database, password, purpose, dataSize, List.copyOf(more));
        }

        /**
         * Starts it on a free port. A port taken by another process between the pick and the container's bind makes
         * the container exit (it runs with {@code --rm}, so it is gone): that is tried again on a new port, 3 times.
         */
        public SourcePostgres start() throws Exception {
            LocalImages.requireDockerAndImages().close();
            IllegalStateException last = null;
            for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
                try {
                    return startOnce();
                } catch (PortTaken e) {
                    last = e;
                    System.out.println("SourcePostgres: " + e.getMessage() + "; starting again on a new port (attempt "
                            + (attempt + 1) + " of " + ATTEMPTS + ")");
                }
            }
            throw last;
        }

        private SourcePostgres startOnce() throws Exception {
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            String name = "roboco-it-" + purpose + "-" + randomPassword().substring(0, 8);
            List<String> args = new ArrayList<>(List.of(
                    "run",
                    "-d",
                    "--rm",
                    "--name",
                    name,
                    "--label",
                    "roboco.sandbox.test=" + purpose,
                    "--network",
                    "host",
                    "--tmpfs",
                    "/var/lib/postgresql/data:rw" + (dataSize == null ? "" : ",size=" + dataSize),
                    "-e",
                    "POSTGRES_USER=" + user,
                    "-e",
                    "POSTGRES_PASSWORD=" + password,
                    "-e",
                    "POSTGRES_DB=" + database,
                    image,
                    "postgres",
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    "port=" + port,
                    "-c",
                    "fsync=off"));
            for (String setting : settings) {
                args.add("-c");
                args.add(setting);
            }
            LocalImages.docker(args.toArray(String[]::new));
            SourcePostgres pg = new SourcePostgres(image, user, database, password, port, name);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            SQLException last = null;
            for (int polls = 1; System.nanoTime() < deadline; polls++) {
                try (Connection c = pg.connect()) {
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
                Thread.sleep(50);
            }
            pg.close();
            throw new IllegalStateException("postgres test container " + name + " not ready in 60 s: " + last);
        }
    }

    private static final class PortTaken extends IllegalStateException {
        PortTaken(String message) {
            super(message);
        }
    }

    /** Its database's URL as a clone seed's environment variable holds it: {@code postgresql://user:pw@host:port/db}. */
    public String url() {
        return "postgresql://" + user + ":" + password + "@127.0.0.1:" + port + "/" + database;
    }

    public String jdbcUrl(String db) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + db;
    }

    /** A connection to its database as its user. */
    public Connection connect() throws SQLException {
        return connect(database);
    }

    public Connection connect(String db) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", user);
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

    private static String randomPassword() {
        byte[] b = new byte[16];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
