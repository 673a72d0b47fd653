package com.example.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.roboco.sandbox.junit.PostgresSandbox;
import io.roboco.sandbox.junit.RoboCoSandbox;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** One Postgres sandbox for the class, seeded from schema.sql; the tests share it. */
@RoboCoSandbox(seed = "schema.sql", labels = "suite=orders")
class OrderRepositoryTest {
    static PostgresSandbox postgres;

    @Test
    void theSeedIsThere() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT customer FROM orders WHERE total_cents = 100")) {
            rs.next();
            assertEquals("seeded", rs.getString(1));
        }
    }

    @Test
    void savesAndSumsOrders() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO orders (customer, total_cents) VALUES ('ada', 250), ('ada', 750)");
            try (ResultSet rs = s.executeQuery("SELECT SUM(total_cents) FROM orders WHERE customer = 'ada'")) {
                rs.next();
                assertEquals(1000, rs.getInt(1));
            }
        }
    }

    @Test
    void theSandboxUserIsNoSuperuser() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")) {
            rs.next();
            assertFalse(rs.getBoolean(1));
        }
    }

    /** Testcontainers' getters work too: a suite that had a PostgreSQLContainer field changes only the type. */
    private static Connection connect() throws Exception {
        return DriverManager.getConnection(postgres.getJdbcUrl(), postgres.getUsername(), postgres.getPassword());
    }
}
