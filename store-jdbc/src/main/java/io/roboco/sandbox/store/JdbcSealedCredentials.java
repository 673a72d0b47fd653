package io.roboco.sandbox.store;

import static io.roboco.sandbox.store.JdbcSettingsStore.all;
import static io.roboco.sandbox.store.JdbcSettingsStore.read;
import static io.roboco.sandbox.store.JdbcSettingsStore.update;
import static io.roboco.sandbox.store.JdbcSettingsStore.write;

import com.fasterxml.jackson.core.type.TypeReference;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.settings.SealedContainer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * The SQL of the {@code sandbox_credentials} table, each method one step inside a transaction the caller opened. The
 * sealed column holds what the plugin sealed; nothing here can open it.
 */
final class JdbcSealedCredentials {
    private static final String COLUMNS =
            "sandbox_id, container_id, owner, instance, service, container_name, image, major, host,"
                    + " port, features, limits, from_pool, created, sealed";
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {};
    private static final TypeReference<Limits> LIMITS = new TypeReference<>() {};

    private JdbcSealedCredentials() {}

    /** Replaces the row of the same sandbox and container, or inserts it (the store runs one transaction at a time). */
    static Void save(Connection c, SealedContainer r) throws SQLException {
        int updated = update(
                c,
                "UPDATE sandbox_credentials SET owner = ?, instance = ?, service = ?, container_name = ?, image = ?,"
                        + " major = ?, host = ?, port = ?, features = ?, limits = ?, from_pool = ?, created = ?, sealed = ?"
                        + " WHERE sandbox_id = ? AND container_id = ?",
                r.owner(),
                r.instance(),
                r.service(),
                r.containerName(),
                r.image(),
                r.major(),
                r.host(),
                r.port(),
                write(r.features()),
                limits(r.limits()),
                r.fromPool(),
                JdbcSandboxes.ts(r.created()),
                r.sealed(),
                r.sandboxId(),
                r.containerId());
        if (updated == 0) {
            update(
                    c,
                    "INSERT INTO sandbox_credentials (" + COLUMNS
                            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    r.sandboxId(),
                    r.containerId(),
                    r.owner(),
                    r.instance(),
                    r.service(),
                    r.containerName(),
                    r.image(),
                    r.major(),
                    r.host(),
                    r.port(),
                    write(r.features()),
                    limits(r.limits()),
                    r.fromPool(),
                    JdbcSandboxes.ts(r.created()),
                    r.sealed());
        }
        return null;
    }

    static List<SealedContainer> of(Connection c, String instance) throws SQLException {
        return all(
                c,
                "SELECT " + COLUMNS + " FROM sandbox_credentials WHERE instance = ? ORDER BY seq",
                JdbcSealedCredentials::row,
                instance);
    }

    static boolean delete(Connection c, String sandboxId, String containerId) throws SQLException {
        return update(
                        c,
                        "DELETE FROM sandbox_credentials WHERE sandbox_id = ? AND container_id = ?",
                        sandboxId,
                        containerId)
                > 0;
    }

    /** Every row of one sandbox: its record was closed or forgotten. */
    static void deleteAll(Connection c, String sandboxId) throws SQLException {
        update(c, "DELETE FROM sandbox_credentials WHERE sandbox_id = ?", sandboxId);
    }

    static boolean resealIf(Connection c, String sandboxId, String containerId, String expected, String next)
            throws SQLException {
        return update(
                        c,
                        "UPDATE sandbox_credentials SET sealed = ? WHERE sandbox_id = ? AND container_id = ? AND sealed = ?",
                        next,
                        sandboxId,
                        containerId,
                        expected)
                == 1;
    }

    private static SealedContainer row(ResultSet rs) throws SQLException {
        String limits = rs.getString(12);
        return new SealedContainer(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getString(6),
                rs.getString(7),
                rs.getString(8),
                rs.getString(9),
                rs.getInt(10),
                read(rs.getString(11), STRINGS),
                limits == null ? null : read(limits, LIMITS),
                rs.getBoolean(13),
                rs.getObject(14, OffsetDateTime.class).toInstant(),
                rs.getString(15));
    }

    private static String limits(Limits limits) {
        return limits == null ? null : write(limits);
    }
}
