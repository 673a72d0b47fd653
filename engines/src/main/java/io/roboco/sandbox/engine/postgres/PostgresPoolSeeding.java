package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.ClaimSession;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.PoolSeeding;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SecretSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Seeded warm-pool containers for Postgres. When the pool container is made: a seeder login role
 * ({@code roboco_seeder_…}, no superuser, no role or database creation) and a database it owns, made from
 * {@code template1} ({@code STRATEGY FILE_COPY} on 15+); the seed runs as that role; then the role loses its login
 * ({@code NOLOGIN PASSWORD NULL}) and its sessions are ended. The agent's database <em>is</em> the seeded one, kept
 * under the name it was made with, so the claim never copies or renames anything.
 *
 * <p>At claim, one transaction on an admin connection into the seeded database, held open since the seed went in:
 * {@code CREATE ROLE} agent, {@code ALTER DATABASE … OWNER TO} agent, {@code REASSIGN OWNED BY} seeder {@code TO}
 * agent (every table, view, sequence, function, type and schema the seed made; grants the seeder made are re-granted
 * by the agent), {@code DROP OWNED BY} seeder (privileges granted to it, default privileges) and {@code DROP ROLE}
 * seeder. Either all of it happens or none (the claim fails and the container is removed). Measured on this machine
 * kind (DESIGN.md): role 4.8 ms + owner 0.3 ms + reassign 1.3 ms, against a 32 ms database copy per claim.
 */
final class PostgresPoolSeeding implements PoolSeeding {
    static final String SEEDER_PREFIX = "roboco_seeder_";

    @Override
    public Credentials seeder(Credentials pooled, SecretSource secrets) {
        String id = secrets.identifier();
        return new Credentials(
                pooled.adminUser(), pooled.adminPassword(), SEEDER_PREFIX + id, secrets.password(), "sandbox_" + id);
    }

    @Override
    public void prepareSeeder(ProbeTarget seeder) throws Exception {
        Credentials c = seeder.credentials();
        String role = PostgresEngine.identifier(c.user());
        try (Connection admin = PostgresEngine.connect(seeder, Login.ADMIN, PostgresEngine.MAINTENANCE_DB);
                Statement s = admin.createStatement()) {
            int major = admin.getMetaData().getDatabaseMajorVersion();
            s.execute(
                    "CREATE ROLE " + role + " LOGIN PASSWORD " + PostgresEngine.literal(ScramVerifier.of(c.password()))
                            + " NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS");
            s.execute("CREATE DATABASE " + PostgresEngine.identifier(c.database()) + " OWNER " + role
                    + (major >= 15 ? " STRATEGY FILE_COPY" : ""));
            if (major < 15) {
                try (Connection inNew = PostgresEngine.connect(seeder, Login.ADMIN);
                        Statement t = inNew.createStatement()) {
                    t.execute("ALTER SCHEMA public OWNER TO " + role);
                }
            }
        }
    }

    @Override
    public void retireSeeder(ProbeTarget seeder) throws Exception {
        String role = PostgresEngine.identifier(seeder.credentials().user());
        try (Connection admin = PostgresEngine.connect(seeder, Login.ADMIN, PostgresEngine.MAINTENANCE_DB);
                Statement s = admin.createStatement()) {
            s.execute("ALTER ROLE " + role + " NOLOGIN PASSWORD NULL");
            s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = "
                    + PostgresEngine.literal(seeder.credentials().user()));
        }
    }

    /**
     * The hand-over prepared when the seeded container became ready ({@link PostgresClaimAhead}): the agent's role made
     * with the claim's password and its login into the seeded database held; the claim hands over the database and
     * everything the seeder made, in one transaction.
     */
    @Override
    public ClaimSession openClaimSession(ProbeTarget seeder, Credentials claim) throws SQLException {
        return PostgresClaimAhead.open(seeder, claim, seeder.credentials().user());
    }
}
