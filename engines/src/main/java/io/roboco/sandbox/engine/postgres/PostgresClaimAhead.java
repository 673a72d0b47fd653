package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.ClaimSession;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.LiveSession;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.ProbeTarget;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A warm-pool claim with everything but the ownership done ahead, off the agent's path (issue 21). When the pool
 * container is ready: an admin connection into the database the agent will own (the pool container's own database for
 * an unseeded pool, the seeded one for a seeded pool), the agent's login role made with the claim's password (drawn by
 * the plugin's secret source when this session was opened; its SCRAM verifier computed here, so the plaintext never
 * reaches the server), and that role's first login into the database opened and held: the proving login of the very
 * credential the claim hands out. At claim, one round trip on the admin connection, one implicit transaction: the
 * database (and on Postgres 14 and older its {@code public} schema; a seeded pool: every object the seeder made, then
 * the seeder dropped) given to the role. No database is copied, no password hashed and no login made on the agent's
 * path.
 *
 * <p>Until the claim the role owns nothing, and only this process holds its password (never logged, kept only in the
 * credentials the claim hands out). A pool container is claimed at most once; a session opened on a container that a
 * crashed process had already prepared drops that process's pending roles first (an unclaimed container has no agent
 * role of anyone's).
 */
final class PostgresClaimAhead implements ClaimSession {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresClaimAhead.class);
    /** The prefix every claim's role has ({@link PostgresEngine#newCredentials}); pending ones are found by it. */
    private static final String ROLE_PREFIX = "agent_";

    private final Connection admin;
    private final Credentials credentials;
    /** The agent role's login, opened ahead; null when it could not be (the claim then proves the login itself). */
    private Connection provingLogin;

    private boolean claimed;
    /** A seeded pool's seeder role, whose objects the claim hands over; null for an unseeded pool. */
    private final String seeder;

    private PostgresClaimAhead(Connection admin, Credentials credentials, Connection provingLogin, String seeder) {
        this.admin = admin;
        this.credentials = credentials;
        this.provingLogin = provingLogin;
        this.seeder = seeder;
    }

    /**
     * Prepares the claim of {@code pooled} (its admin credential; its database the one the agent will own) for
     * {@code claim}'s role and password, handing over {@code seeder}'s objects at claim when not null.
     */
    static ClaimSession open(ProbeTarget pooled, Credentials claim, String seeder) throws SQLException {
        if (!claim.user().startsWith(ROLE_PREFIX)) {
            throw new IllegalArgumentException("a claim's role is named " + ROLE_PREFIX + "…, not " + claim.user());
        }
        Credentials c = pooled.credentials();
        Credentials handed =
                new Credentials(c.adminUser(), c.adminPassword(), claim.user(), claim.password(), c.database());
        Connection admin = PostgresEngine.connect(pooled, Login.ADMIN, c.database());
        try {
            try (Statement s = admin.createStatement()) {
                dropPendingRoles(s);
                s.execute("CREATE ROLE " + PostgresEngine.identifier(handed.user()) + " LOGIN PASSWORD "
                        + PostgresEngine.literal(ScramVerifier.of(handed.password()))
                        + " NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS");
            }
        } catch (SQLException | RuntimeException e) {
            closeQuietly(admin);
            throw e;
        }
        Connection login = null;
        try {
            login = PostgresEngine.connect(ProbeTarget.of(pooled.endpoint(), handed), Login.AGENT);
        } catch (SQLException e) {
            // A seed that revoked CONNECT from PUBLIC, say: the claim proves the login itself, after the grant.
            LOG.debug("postgres claim ahead at {}: no login ahead ({})", pooled.endpoint(), e.getMessage());
        }
        return new PostgresClaimAhead(admin, handed, login, seeder);
    }

    @Override
    public Credentials credentials() {
        return credentials;
    }

    @Override
    public void claim(ProbeTarget target) throws Exception {
        Credentials c = target.credentials();
        if (!credentials.user().equals(c.user())
                || !credentials.database().equals(c.database())
                || !credentials.password().equals(c.password())) {
            throw new IllegalStateException(
                    "the claim's credentials are not this session's (" + credentials.user() + ")");
        }
        String agent = PostgresEngine.identifier(credentials.user());
        StringBuilder sql = new StringBuilder()
                .append("ALTER DATABASE ")
                .append(PostgresEngine.identifier(credentials.database()))
                .append(" OWNER TO ")
                .append(agent);
        if (seeder != null) {
            String s = PostgresEngine.identifier(seeder);
            sql.append(";\nREASSIGN OWNED BY ")
                    .append(s)
                    .append(" TO ")
                    .append(agent)
                    .append(";\nDROP OWNED BY ")
                    .append(s)
                    .append(";\nDROP ROLE ")
                    .append(s);
        } else if (admin.getMetaData().getDatabaseMajorVersion() < 15) {
            sql.append(";\nALTER SCHEMA public OWNER TO ").append(agent);
        }
        long t0 = System.nanoTime();
        try (Statement s = admin.createStatement()) {
            s.execute(sql.toString()); // one simple-protocol query: one implicit transaction
        }
        long handed = System.nanoTime();
        claimed = true;
        if (provingLogin == null) {
            PostgresEngine.selectOne(target, Login.AGENT);
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug(
                    "postgres claim at {}: ownership {} us{}",
                    target.endpoint(),
                    (handed - t0) / 1000,
                    provingLogin == null
                            ? ", agent login " + (System.nanoTime() - handed) / 1000 + " us"
                            : " (credential and login made ahead)");
        }
    }

    @Override
    public LiveSession handOverLiveSession() {
        if (!claimed || provingLogin == null) {
            return null;
        }
        LiveSession session = PostgresEngine.liveSession(provingLogin); // the agent's role, logged in ahead
        provingLogin = null;
        return session;
    }

    @Override
    public void close() {
        if (provingLogin != null) {
            closeQuietly(provingLogin);
        }
        closeQuietly(admin);
    }

    /** Agent roles left by a session of a process that ended before the claim: none of them belongs to anyone. */
    private static void dropPendingRoles(Statement s) throws SQLException {
        List<String> pending = new ArrayList<>();
        try (ResultSet r = s.executeQuery("SELECT rolname FROM pg_roles WHERE rolname LIKE 'agent\\_%'")) {
            while (r.next()) {
                pending.add(r.getString(1));
            }
        }
        for (String role : pending) {
            s.execute("DROP ROLE " + PostgresEngine.identifier(role));
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // the container is going away, or the connection was closed
        }
    }
}
