package io.roboco.sandbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.provision.ServiceInstance;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The agent's sessions in a Postgres sandbox, as its server counts them ({@code pg_stat_activity}, read on the admin
 * credential): how many, and when the newest began (epoch seconds; the container shares the host's clock).
 */
public record AgentSessions(int count, double newestStartedEpochSeconds) {
    /**
     * Asserts that the agent has exactly one session in {@code sandbox}, {@code which} one (its liveness session),
     * begun before {@code epochSeconds}, {@code when} that was (the claim, the answer).
     */
    public static void assertOnlyOne(ServiceInstance sandbox, String which, double epochSeconds, String when)
            throws SQLException {
        AgentSessions sessions = of(sandbox);
        assertThat(sessions.count()).as("the agent's sessions: " + which).isEqualTo(1);
        assertThat(sessions.newestStartedEpochSeconds())
                .as("opened before " + when)
                .isLessThan(epochSeconds);
    }

    public static AgentSessions of(ServiceInstance sandbox) throws SQLException {
        try (Connection admin = DriverManager.getConnection(
                        "jdbc:postgresql://" + sandbox.endpoint().host() + ":"
                                + sandbox.endpoint().port() + "/"
                                + sandbox.credentials().database() + "?sslmode=disable&connectTimeout=5",
                        sandbox.credentials().adminUser(),
                        sandbox.credentials().adminPassword());
                Statement s = admin.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*), max(extract(epoch FROM backend_start))"
                        + " FROM pg_stat_activity WHERE usename = '"
                        + sandbox.credentials().user() + "'")) {
            rs.next();
            return new AgentSessions(rs.getInt(1), rs.getDouble(2));
        }
    }
}
