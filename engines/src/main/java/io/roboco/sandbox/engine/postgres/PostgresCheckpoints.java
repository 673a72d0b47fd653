package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.UnknownNameException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Postgres {@link Checkpoints}: checkpoint and rewind of an agent's database inside its own sandbox container, with the same connection string.
 * A checkpoint is a copy of the database ({@code CREATE DATABASE … TEMPLATE … STRATEGY FILE_COPY}) that nobody can
 * connect to; a rewind swaps the agent's database for a fresh copy of the checkpoint under the same name, owned by
 * the same role, so host, port, database, user and password stay. Both run on the plugin-held admin credential,
 * connected to the maintenance database.
 *
 * <p>Postgres copies a database only while nobody is connected to it, so both close the agent's sessions on that
 * database (connections are refused for the few milliseconds of the copy) and report how many they closed.
 * Checkpoints live in the sandbox's data directory, so they count against its size limit (the tmpfs cap).
 */
final class PostgresCheckpoints implements Checkpoints {
    static final String SUFFIX = "__ck_";
    private static final String OLD_SUFFIX = "__rewound";
    private static final String STAGING_SUFFIX = "__rw";

    /** Copies the agent's database as checkpoint {@code name} (replacing one of the same name). */
    @Override
    public Result checkpoint(ProbeTarget target, String name) throws SQLException {
        CheckpointName.of(name);
        long t0 = System.nanoTime();
        Credentials c = target.credentials();
        String db = c.database();
        String copy = db + SUFFIX + name;
        try (Connection admin = PostgresEngine.connect(target, Login.ADMIN, PostgresEngine.MAINTENANCE_DB);
                Statement s = admin.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + PostgresEngine.identifier(copy));
            int closed = closeSessions(admin, db);
            try {
                s.execute("CREATE DATABASE " + PostgresEngine.identifier(copy) + " TEMPLATE "
                        + PostgresEngine.identifier(db) + " STRATEGY FILE_COPY ALLOW_CONNECTIONS false");
            } finally {
                s.execute("ALTER DATABASE " + PostgresEngine.identifier(db) + " ALLOW_CONNECTIONS true");
            }
            return new Result(name, size(admin, copy), closed, (System.nanoTime() - t0) / 1_000_000);
        }
    }

    /** A prepared rewind, committed and finished at once. */
    @Override
    public Result rewind(ProbeTarget target, String name) throws SQLException {
        try (Prepared prepared = prepareRewind(target, name)) {
            Result result = prepared.commit();
            prepared.finish();
            return result;
        }
    }

    /**
     * Copies checkpoint {@code name} into a staging database ({@code <db>__rw}, owner: the agent) while the agent's
     * database is untouched; {@link Prepared#commit} then swaps the names (the agent's database aside as
     * {@code <db>__rewound}, the staging copy under the agent's name), {@link Prepared#undo} swaps them back, and
     * {@link Prepared#finish} drops the one set aside.
     *
     * @throws UnknownNameException when there is no such checkpoint (the message lists the ones there are)
     */
    @Override
    public Prepared prepareRewind(ProbeTarget target, String name) throws SQLException {
        CheckpointName.of(name);
        long t0 = System.nanoTime();
        Credentials c = target.credentials();
        String db = c.database();
        String copy = db + SUFFIX + name;
        Connection admin = PostgresEngine.connect(target, Login.ADMIN, PostgresEngine.MAINTENANCE_DB);
        try (Statement s = admin.createStatement()) {
            if (!exists(admin, copy)) {
                throw new UnknownNameException(
                        "no checkpoint '" + name + "' in this sandbox; there are: " + names(list(admin, db)));
            }
            s.execute("DROP DATABASE IF EXISTS " + PostgresEngine.identifier(db + STAGING_SUFFIX) + " WITH (FORCE)");
            s.execute("DROP DATABASE IF EXISTS " + PostgresEngine.identifier(db + OLD_SUFFIX) + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + PostgresEngine.identifier(db + STAGING_SUFFIX) + " TEMPLATE "
                    + PostgresEngine.identifier(copy) + " OWNER " + PostgresEngine.identifier(c.user())
                    + " STRATEGY FILE_COPY ALLOW_CONNECTIONS false");
            return new Prepared(admin, name, db, t0);
        } catch (SQLException | RuntimeException e) {
            admin.close();
            throw e;
        }
    }

    /** A Postgres rewind made ready: the checkpoint's copy waits as {@code <db>__rw}, on a held admin connection. */
    static final class Prepared implements PreparedRewind {
        private final Connection admin;
        private final String name;
        private final String db;
        private final long t0;
        private boolean committed;

        private Prepared(Connection admin, String name, String db, long t0) {
            this.admin = admin;
            this.name = name;
            this.db = db;
            this.t0 = t0;
        }

        /** Closes the agent's sessions, sets its database aside and puts the staging copy under its name. */
        @Override
        public Result commit() throws SQLException {
            int closed = closeSessions(admin, db);
            try {
                rename(db, db + OLD_SUFFIX);
            } catch (SQLException e) {
                allowConnections(db);
                throw e;
            }
            try {
                rename(db + STAGING_SUFFIX, db);
                allowConnections(db);
            } catch (SQLException e) {
                rename(db + OLD_SUFFIX, db);
                allowConnections(db);
                throw e;
            }
            committed = true;
            return new Result(name, size(admin, db), closed, (System.nanoTime() - t0) / 1_000_000);
        }

        /** Puts the database set aside by {@link #commit} back under the agent's name. */
        @Override
        public void undo() throws SQLException {
            closeSessions(admin, db);
            rename(db, db + STAGING_SUFFIX);
            rename(db + OLD_SUFFIX, db);
            allowConnections(db);
            committed = false;
        }

        @Override
        public void finish() throws SQLException {
            try (Statement s = admin.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + PostgresEngine.identifier(db + OLD_SUFFIX) + " WITH (FORCE)");
            }
        }

        @Override
        public void close() {
            try (admin;
                    Statement s = admin.createStatement()) {
                s.execute(
                        "DROP DATABASE IF EXISTS " + PostgresEngine.identifier(db + STAGING_SUFFIX) + " WITH (FORCE)");
                if (committed) {
                    s.execute(
                            "DROP DATABASE IF EXISTS " + PostgresEngine.identifier(db + OLD_SUFFIX) + " WITH (FORCE)");
                }
            } catch (SQLException e) {
                // what stays is in the sandbox's own container, not reachable by the agent, and goes with it
            }
        }

        private void rename(String from, String to) throws SQLException {
            try (Statement s = admin.createStatement()) {
                s.execute("ALTER DATABASE " + PostgresEngine.identifier(from) + " RENAME TO "
                        + PostgresEngine.identifier(to));
            }
        }

        private void allowConnections(String datname) throws SQLException {
            try (Statement s = admin.createStatement()) {
                s.execute("ALTER DATABASE " + PostgresEngine.identifier(datname) + " ALLOW_CONNECTIONS true");
            }
        }
    }

    /** Drops checkpoint {@code name}; nothing when there is none. */
    @Override
    public void delete(ProbeTarget target, String name) throws SQLException {
        CheckpointName.of(name);
        try (Connection admin = PostgresEngine.connect(target, Login.ADMIN, PostgresEngine.MAINTENANCE_DB);
                Statement s = admin.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS "
                    + PostgresEngine.identifier(target.credentials().database() + SUFFIX + name) + " WITH (FORCE)");
        }
    }

    /** The sandbox's checkpoints, by name. */
    @Override
    public List<Checkpoint> list(ProbeTarget target) throws SQLException {
        try (Connection admin = PostgresEngine.connect(target, Login.ADMIN, PostgresEngine.MAINTENANCE_DB)) {
            return list(admin, target.credentials().database());
        }
    }

    /** Refuses new connections to {@code db}, then ends every session on it; returns how many were ended. */
    private static int closeSessions(Connection admin, String db) throws SQLException {
        try (Statement s = admin.createStatement()) {
            s.execute("ALTER DATABASE " + PostgresEngine.identifier(db) + " ALLOW_CONNECTIONS false");
        }
        int closed = 0;
        try (PreparedStatement ps = admin.prepareStatement(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                closed = rs.getInt(1);
            }
        }
        return closed;
    }

    static List<Checkpoint> list(Connection admin, String db) throws SQLException {
        List<Checkpoint> out = new ArrayList<>();
        try (PreparedStatement ps = admin.prepareStatement(
                "SELECT substr(datname, ?), pg_database_size(oid) FROM pg_database WHERE starts_with(datname, ?) ORDER BY 1")) {
            ps.setInt(1, db.length() + SUFFIX.length() + 1);
            ps.setString(2, db + SUFFIX);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Checkpoint(rs.getString(1), rs.getLong(2)));
                }
            }
        }
        return out;
    }

    static boolean exists(Connection admin, String datname) throws SQLException {
        try (PreparedStatement ps = admin.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            ps.setString(1, datname);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static long size(Connection admin, String datname) throws SQLException {
        try (PreparedStatement ps = admin.prepareStatement("SELECT pg_database_size(?)")) {
            ps.setString(1, datname);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static String names(List<Checkpoint> checkpoints) {
        return checkpoints.isEmpty()
                ? "none"
                : String.join(", ", checkpoints.stream().map(Checkpoint::name).toList());
    }
}
