package io.roboco.sandbox.junit;

import java.util.Map;

/**
 * A leased Postgres database: its own database, owned by its own role (not a superuser). Besides its own accessors
 * it has the getters of Testcontainers' {@code JdbcDatabaseContainer} ({@link #getJdbcUrl()}, {@link #getUsername()},
 * …), so a suite that used a {@code PostgreSQLContainer} field switches by changing the field's type.
 */
public final class PostgresSandbox implements ServiceSandbox {
    private final String sandboxId;
    private final Map<String, String> env;

    PostgresSandbox(String sandboxId, Map<String, String> env) {
        this.sandboxId = sandboxId;
        this.env = Map.copyOf(env);
        Env.require(env, "postgres", "ROBOCO_TEST_DB_", "HOST", "PORT", "NAME", "USER", "PASSWORD", "URL");
    }

    @Override
    public String sandboxId() {
        return sandboxId;
    }

    @Override
    public String service() {
        return "postgres";
    }

    @Override
    public String host() {
        return env.get("ROBOCO_TEST_DB_HOST");
    }

    @Override
    public int port() {
        return Integer.parseInt(env.get("ROBOCO_TEST_DB_PORT"));
    }

    public String database() {
        return env.get("ROBOCO_TEST_DB_NAME");
    }

    @Override
    public String user() {
        return env.get("ROBOCO_TEST_DB_USER");
    }

    @Override
    public String password() {
        return env.get("ROBOCO_TEST_DB_PASSWORD");
    }

    /** {@code postgresql://user:password@host:port/database}. */
    @Override
    public String url() {
        return env.get("ROBOCO_TEST_DB_URL");
    }

    /** {@code jdbc:postgresql://host:port/database} (user and password apart, as JDBC takes them). */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + host() + ":" + port() + "/" + database();
    }

    @Override
    public Map<String, String> env() {
        return env;
    }

    // --- the Testcontainers face (JdbcDatabaseContainer's getters) -----------------------------------------------

    public String getJdbcUrl() {
        return jdbcUrl();
    }

    public String getUsername() {
        return user();
    }

    public String getPassword() {
        return password();
    }

    public String getDatabaseName() {
        return database();
    }

    public String getHost() {
        return host();
    }

    public Integer getFirstMappedPort() {
        return port();
    }

    /** The sandbox's port, whatever the container port asked for (a sandbox has one). */
    public Integer getMappedPort(int originalPort) {
        return port();
    }

    public String getDriverClassName() {
        return "org.postgresql.Driver";
    }

    @Override
    public String toString() {
        return "PostgresSandbox[" + sandboxId + ", " + host() + ":" + port() + "/" + database() + ", user=" + user()
                + ", password=<redacted>]";
    }
}
