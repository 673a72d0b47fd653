package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.ClaimSession;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.LiveSession;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SecretSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A warm-pool claim with everything but the credential and the ownership done ahead, off the agent's path (issue 21).
 * When the pool container is ready: an admin connection into the database the agent will own (the pool container's
 * own database for an unseeded pool, the seeded one for a seeded pool), the agent's login role made with a provisional
 * password only this object ever held, and that role's first login into the database opened and held: the proving
 * login, done ahead. At claim, one round trip on the admin connection, one implicit transaction: the role's password
 * set to the claim's fresh one (a SCRAM verifier computed here, so the plaintext never reaches the server), the
 * database (and on Postgres 14 and older its {@code public} schema; a seeded pool: every object the seeder made, then
 * the seeder dropped) given to the role. No database is copied and no login is made on the agent's path.
 *
 * <p>The provisional password lives only in {@link #open} (not kept, logged or handed out) and stops working at claim. A pool
 * container is claimed at most once; a session opened on a container that a crashed process had already prepared
 * drops that process's pending roles first (an unclaimed container has no agent role of anyone's).
 */
final class PostgresClaimAhead implements ClaimSession {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresClaimAhead.class);
    private static final SecretSource SECRETS = SecretSource.secure();

    private final Connection admin;
    private final String role;
    private final String database;
    /** The agent role's login, opened ahead; null when it could not be (the claim then proves the login itself). */
    private Connection provingLogin;

    private boolean claimed;
    /** A seeded pool's seeder role, whose objects the claim hands over; null for an unseeded pool. */
    private final String seeder;

    private PostgresClaimAhead(Connection admin, String role, String database, Connection provingLogin, String seeder) {
        this.admin = admin;
        this.role = role;
        this.database = database;
        this.provingLogin = provingLogin;
        this.seeder = seeder;
    }

    /**
     * Prepares the claim of {@code pooled} (its admin credential; its database the one the agent will own), handing over
     * {@code seeder}'s objects at claim when not null.
     */
    static ClaimSession open(ProbeTarget pooled, String seeder) throws SQLException {
        Credentials c = pooled.credentials();
        Connection admin = PostgresEngine.connect(pooled, Login.ADMIN, c.database());
        String role = "agent_" + SECRETS.identifier();
        String provisional =
                SECRETS.password(); // used for the login ahead, then forgotten: the claim sets the real one
        try {
            try (Statement s = admin.createStatement()) {
                dropPendingRoles(s);
                s.execute("CREATE ROLE " + PostgresEngine.identifier(role) + " LOGIN PASSWORD "
                        + PostgresEngine.literal(ScramVerifier.of(provisional))
                        + " NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS");
            }
        } catch (SQLException | RuntimeException e) {
            closeQuietly(admin);
            throw e;
        }
        Connection login = null;
        try {
            login = PostgresEngine.connect(
                    ProbeTarget.of(
                            pooled.endpoint(),
                            new Credentials(c.adminUser(), c.adminPassword(), role, provisional, c.database())),
                    Login.AGENT);
        } catch (SQLException e) {
            // A seed that revoked CONNECT from PUBLIC, say: the claim proves the login itself, after the grant.
            LOG.debug("postgres claim ahead at {}: no login ahead ({})", pooled.endpoint(), e.getMessage());
        }
        return new PostgresClaimAhead(admin, role, c.database(), login, seeder);
    }

    @Override
    public Credentials credentials(Credentials proposed) {
        return new Credentials(proposed.adminUser(), proposed.adminPassword(), role, proposed.password(), database);
    }

    @Override
    public void claim(ProbeTarget target) throws Exception {
        Credentials c = target.credentials();
        if (!role.equals(c.user()) || !database.equals(c.database())) {
            throw new IllegalStateException("the claim's credentials are not this session's (" + role + ")");
        }
        String agent = PostgresEngine.identifier(role);
        StringBuilder sql = new StringBuilder()
                .append("ALTER ROLE ")
                .append(agent)
                .append(" PASSWORD ")
                .append(PostgresEngine.literal(ScramVerifier.of(c.password())))
                .append(";\nALTER DATABASE ")
                .append(PostgresEngine.identifier(database))
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
                    "postgres claim at {}: credential and ownership {} us{}",
                    target.endpoint(),
                    (handed - t0) / 1000,
                    provingLogin == null
                            ? ", agent login " + (System.nanoTime() - handed) / 1000 + " us"
                            : " (login proven ahead)");
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
