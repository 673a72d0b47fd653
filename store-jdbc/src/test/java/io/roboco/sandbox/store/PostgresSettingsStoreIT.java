package io.roboco.sandbox.store;

import static org.junit.jupiter.api.Assertions.fail;

import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.testkit.SettingsStoreContract;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The settings contract against a real PostgreSQL 15 server in a throwaway container (host network,
 * 127.0.0.1 only, data on tmpfs), one fresh database per test. Needs the Docker daemon and the local
 * image that ./scripts/test.sh builds; without them this fails, it does not skip.
 */
class PostgresSettingsStoreIT extends SettingsStoreContract {
    private static final String IMAGE = "roboco-sandbox/postgres:15";
    private static final String USER = "store_it";
    private static final String ADMIN_DB = "store_it";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private static String password;
    private static String container;
    private static int port;

    private String url;

    @BeforeAll
    static void startPostgres() throws Exception {
        requireDocker();
        SecureRandom random = new SecureRandom();
        password = HexFormat.of().formatHex(bytes(random, 16));
        port = freePort();
        String name = "store-it-" + HexFormat.of().formatHex(bytes(random, 4));
        Result run = docker(
                Duration.ofSeconds(60),
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
                "POSTGRES_DB=" + ADMIN_DB,
                "--tmpfs",
                "/var/lib/postgresql/data",
                IMAGE,
                "postgres",
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "port=" + port,
                "-c",
                "fsync=off");
        if (run.exit() != 0) {
            fail("docker run " + IMAGE + " failed (exit " + run.exit() + "): " + run.output());
        }
        container = name;
        Runtime.getRuntime().addShutdownHook(new Thread(PostgresSettingsStoreIT::removeContainer));
        awaitReady();
    }

    @AfterAll
    static void removeContainer() {
        String c = container;
        container = null;
        if (c != null) {
            try {
                docker(Duration.ofSeconds(30), "rm", "-f", c);
            } catch (IOException | InterruptedException e) {
                System.err.println("could not remove test container " + c + ": " + e);
            }
        }
    }

    @Override
    protected SettingsStore createStore() throws SQLException {
        String db = "settings_" + DATABASES.incrementAndGet();
        try (Connection c = connect(ADMIN_DB, 5);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
        url = jdbcUrl(db);
        return JdbcSettingsStore.open(url, USER, password);
    }

    @Override
    protected SettingsStore openSecond() {
        return JdbcSettingsStore.open(url, USER, password);
    }

    @Override
    protected SettingsStore reopen() {
        return JdbcSettingsStore.open(url, USER, password);
    }

    // --- the container ----------------------------------------------------------------------

    private static void requireDocker() throws InterruptedException {
        Result version;
        try {
            version = docker(Duration.ofSeconds(20), "version", "--format", "{{.Server.Version}}");
        } catch (IOException e) {
            fail("the docker CLI is not available (" + e.getMessage() + "); this test needs Docker and the image "
                    + IMAGE + " — run ./scripts/test.sh");
            return;
        }
        if (version.exit() != 0) {
            fail("the Docker daemon is not reachable (docker version exited " + version.exit() + ": " + version.output()
                    + "); run ./scripts/test.sh");
        }
        try {
            if (docker(Duration.ofSeconds(20), "image", "inspect", "--format", "{{.Id}}", IMAGE)
                            .exit()
                    != 0) {
                fail("the image " + IMAGE + " is missing; it is built locally (no registry is reachable)"
                        + " — run ./scripts/test.sh");
            }
        } catch (IOException e) {
            fail("docker image inspect failed: " + e.getMessage() + "; run ./scripts/test.sh");
        }
    }

    private static void awaitReady() throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        SQLException last = null;
        int attempt = 0;
        while (System.nanoTime() < deadline) {
            try (Connection c = connect(ADMIN_DB, 1)) {
                return;
            } catch (SQLException e) {
                last = e;
            }
            if (++attempt % 10 == 0 && !running()) {
                failStart("exited before accepting connections", last);
            }
            Thread.sleep(100);
        }
        failStart("not ready in " + READY_TIMEOUT.toSeconds() + "s", last);
    }

    private static boolean running() throws IOException, InterruptedException {
        Result r = docker(Duration.ofSeconds(10), "inspect", "--format", "{{.State.Running}}", container);
        return r.exit() == 0 && r.output().trim().equals("true");
    }

    private static void failStart(String what, SQLException last) throws IOException, InterruptedException {
        String logs = docker(Duration.ofSeconds(10), "logs", "--tail", "30", container)
                .output();
        String name = container;
        removeContainer();
        fail("postgres test container " + name + " (" + IMAGE + ", 127.0.0.1:" + port + ") " + what
                + "; last JDBC error: " + (last == null ? "none" : last.getMessage())
                + "; last log lines:\n" + logs + "\ncontainer removed");
    }

    private static Connection connect(String db, int timeoutSeconds) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", USER);
        props.setProperty("password", password);
        props.setProperty("connectTimeout", String.valueOf(timeoutSeconds));
        return DriverManager.getConnection(jdbcUrl(db), props);
    }

    private static String jdbcUrl(String db) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + db;
    }

    private static byte[] bytes(SecureRandom random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private record Result(int exit, String output) {}

    private static Result docker(Duration timeout, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add("docker");
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            return new Result(-1, "docker " + args[0] + " timed out after " + timeout.toSeconds() + "s");
        }
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
