package io.roboco.sandbox.junit;

import java.util.Map;

/**
 * A leased Postgres database: its own database, owned by its own role (not a superuser). Besides its own accessors
 * it has the getters of Testcontainers' {@code JdbcDatabaseContainer} ({@link #getJdbcUrl()}, {@link #getUsername()},
 * …), so a suite that used a {@code PostgreSQLContainer} field switches by changing the field's type.
 * {@link #url()} is {@code postgresql://user:password@host:port/database}.
 */
public final class PostgresSandbox extends LeasedService {
    PostgresSandbox(String sandboxId, Map<String, String> env) {
        super(sandboxId, "postgres", "ROBOCO_TEST_DB_", env, "NAME");
    }

    public String database() {
        return value("NAME");
    }

    /** {@code jdbc:postgresql://host:port/database} (user and password apart, as JDBC takes them). */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + host() + ":" + port() + "/" + database();
    }

    @Override
    String where() {
        return super.where() + "/" + database();
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

    public String getDriverClassName() {
        return "org.postgresql.Driver";
    }
}
