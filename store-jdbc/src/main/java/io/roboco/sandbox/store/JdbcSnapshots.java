package io.roboco.sandbox.store;

import static io.roboco.sandbox.store.JdbcSettingsStore.all;
import static io.roboco.sandbox.store.JdbcSettingsStore.one;
import static io.roboco.sandbox.store.JdbcSettingsStore.read;
import static io.roboco.sandbox.store.JdbcSettingsStore.update;
import static io.roboco.sandbox.store.JdbcSettingsStore.write;

import com.fasterxml.jackson.core.type.TypeReference;
import io.roboco.sandbox.engine.SchemaDigest;
import io.roboco.sandbox.settings.StoredSnapshot;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;

/**
 * The SQL of the {@code sandbox_snapshots} table (schema snapshots, data issue), each method one step inside a
 * transaction the caller opened. The digest is kept whole as JSON; its version, Postgres version and hash are columns
 * too, so an operator can read them with SQL.
 */
final class JdbcSnapshots {
    private static final TypeReference<SchemaDigest> DIGEST = new TypeReference<>() {};

    private JdbcSnapshots() {}

    /** Replaces the same name, or inserts a new one while the sandbox holds fewer than {@code max}. */
    static boolean save(Connection c, StoredSnapshot s, int max) throws SQLException {
        SchemaDigest d = s.digest();
        int updated = update(
                c,
                "UPDATE sandbox_snapshots SET taken = ?, format_version = ?, postgres_version = ?, digest = ?, body = ?"
                        + " WHERE sandbox_id = ? AND name = ?",
                JdbcSandboxes.ts(s.taken()),
                d.formatVersion(),
                d.postgresVersion(),
                d.digest(),
                write(d),
                s.sandbox(),
                s.name());
        if (updated > 0) {
            return true;
        }
        if (names(c, s.sandbox()).size() >= max) {
            return false;
        }
        update(
                c,
                "INSERT INTO sandbox_snapshots (sandbox_id, name, taken, format_version, postgres_version, digest, body)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?)",
                s.sandbox(),
                s.name(),
                JdbcSandboxes.ts(s.taken()),
                d.formatVersion(),
                d.postgresVersion(),
                d.digest(),
                write(d));
        return true;
    }

    static Optional<StoredSnapshot> find(Connection c, String sandbox, String name) throws SQLException {
        return one(
                c,
                "SELECT sandbox_id, name, taken, body FROM sandbox_snapshots WHERE sandbox_id = ? AND name = ?",
                JdbcSnapshots::row,
                sandbox,
                name);
    }

    static List<String> names(Connection c, String sandbox) throws SQLException {
        return all(
                c,
                "SELECT name FROM sandbox_snapshots WHERE sandbox_id = ? ORDER BY seq",
                rs -> rs.getString(1),
                sandbox);
    }

    /** Every snapshot of one sandbox: its record was closed or forgotten (or it had none). */
    static int deleteAll(Connection c, String sandbox) throws SQLException {
        return update(c, "DELETE FROM sandbox_snapshots WHERE sandbox_id = ?", sandbox);
    }

    private static StoredSnapshot row(ResultSet rs) throws SQLException {
        return new StoredSnapshot(
                rs.getString(1),
                rs.getString(2),
                rs.getObject(3, OffsetDateTime.class).toInstant(),
                read(rs.getString(4), DIGEST));
    }
}
