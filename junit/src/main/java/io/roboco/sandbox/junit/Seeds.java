package io.roboco.sandbox.junit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** {@code seed = "schema.sql"}: a classpath resource run in a fresh Postgres sandbox through JDBC, as its own user. */
final class Seeds {
    private Seeds() {}

    static void run(String resource, PostgresSandbox postgres, ClassLoader loader) throws IOException, SQLException {
        String sql;
        try (InputStream in = loader.getResourceAsStream(resource.startsWith("/") ? resource.substring(1) : resource)) {
            if (in == null) {
                throw new IllegalStateException("seed '" + resource + "' is not on the test classpath");
            }
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            if ("08001".equals(e.getSQLState())
                    && e.getMessage() != null
                    && e.getMessage().contains("No suitable driver")) {
                throw new IllegalStateException(
                        "seed '" + resource
                                + "' needs the PostgreSQL JDBC driver (org.postgresql:postgresql) on the test classpath",
                        e);
            }
            throw e;
        }
    }
}
