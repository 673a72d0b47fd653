package io.roboco.sandbox.store;

import static io.roboco.sandbox.store.JdbcSettingsStore.all;
import static io.roboco.sandbox.store.JdbcSettingsStore.one;
import static io.roboco.sandbox.store.JdbcSettingsStore.read;
import static io.roboco.sandbox.store.JdbcSettingsStore.write;

import com.fasterxml.jackson.core.type.TypeReference;
import io.roboco.sandbox.settings.ContainerRef;
import io.roboco.sandbox.settings.Quota;
import io.roboco.sandbox.settings.Reservation;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The SQL of sandbox records and instance heartbeats, each method one step inside a transaction the
 * caller opened. {@link #reserve} is the quota rule's atomic step: on PostgreSQL it first takes
 * transaction-scoped advisory locks on the owner and the project (so two servers sharing the database
 * serialize their reservations for them), then counts and inserts; on the embedded H2 database the store's
 * single connection already runs one transaction at a time, and H2's file lock keeps other processes out.
 */
final class JdbcSandboxes {
    private static final String COLUMNS =
            "id, owner, project, name, kind, labels, services, containers, instance, created,"
                    + " expires, max_expires, deleted, deleted_reason";
    private static final TypeReference<Map<String, String>> LABELS = new TypeReference<>() {};
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {};
    private static final TypeReference<List<ContainerRef>> CONTAINERS = new TypeReference<>() {};
    /** First word of the advisory lock keys, so ours never collide with another application's. */
    private static final long LOCK_SPACE = 0x524f424f434fL; // "ROBOCO"

    private JdbcSandboxes() {}

    static Reservation reserve(Connection c, DatabaseUrl.Kind kind, SandboxRecord draft, Quota quota)
            throws SQLException {
        if (kind == DatabaseUrl.Kind.POSTGRES) {
            // Sorted, so two transactions always take them in the same order and never deadlock.
            long[] keys = {lockKey("owner", draft.owner()), lockKey("project", draft.project())};
            Arrays.sort(keys);
            for (long key : keys) {
                one(c, "SELECT pg_advisory_xact_lock(?)", rs -> 1, key);
            }
        }
        OffsetDateTime now = ts(draft.created());
        if (draft.claimsItsName()) {
            Optional<SandboxRecord> taken = one(
                    c,
                    "SELECT " + COLUMNS + " FROM sandboxes WHERE owner = ? AND name = ?"
                            + " AND kind = ? AND deleted IS NULL",
                    JdbcSandboxes::record,
                    draft.owner(),
                    draft.name(),
                    draft.kind().name());
            if (taken.isPresent()) {
                return new Reservation.NameTaken(taken.get());
            }
        }
        List<SandboxRecord> ownerLive = all(
                c,
                "SELECT " + COLUMNS + " FROM sandboxes WHERE owner = ? AND deleted IS NULL"
                        + " AND expires > ? ORDER BY created, seq",
                JdbcSandboxes::record,
                draft.owner(),
                now);
        if (ownerLive.size() >= quota.perOwner()) {
            return new Reservation.OverQuota("owner", quota.perOwner(), ownerLive.size(), ownerLive);
        }
        if (quota.perProject() > 0) {
            int projectLive = one(
                            c,
                            "SELECT COUNT(*) FROM sandboxes WHERE project = ? AND deleted IS NULL AND expires > ?",
                            rs -> rs.getInt(1),
                            draft.project(),
                            now)
                    .orElse(0);
            if (projectLive >= quota.perProject()) {
                return new Reservation.OverQuota("project", quota.perProject(), projectLive, ownerLive);
            }
        }
        JdbcSettingsStore.update(
                c,
                "INSERT INTO sandboxes (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                draft.id(),
                draft.owner(),
                draft.project(),
                draft.name(),
                draft.kind().name(),
                write(draft.labels()),
                write(draft.services()),
                write(draft.containers()),
                draft.instance(),
                now,
                ts(draft.expires()),
                ts(draft.maxExpires()),
                null,
                null);
        return new Reservation.Reserved(draft);
    }

    static Optional<SandboxRecord> find(Connection c, String id) throws SQLException {
        return one(c, "SELECT " + COLUMNS + " FROM sandboxes WHERE id = ?", JdbcSandboxes::record, id);
    }

    /** Owner, project, instance and state are filtered in SQL; labels (JSON) here. */
    static List<SandboxRecord> list(Connection c, SandboxQuery q) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM sandboxes WHERE 1 = 1");
        List<Object> args = new ArrayList<>();
        filter(sql, args, "owner", q.owner());
        filter(sql, args, "project", q.project());
        filter(sql, args, "instance", q.instance());
        OffsetDateTime now = ts(q.now());
        List<String> states = new ArrayList<>();
        if (q.states().contains(SandboxState.LIVE)) {
            states.add("(deleted IS NULL AND expires > ?)");
            args.add(now);
        }
        if (q.states().contains(SandboxState.EXPIRED)) {
            states.add("(deleted IS NULL AND expires <= ?)");
            args.add(now);
        }
        if (q.states().contains(SandboxState.DELETED)) {
            states.add("(deleted IS NOT NULL)");
        }
        sql.append(" AND (").append(String.join(" OR ", states)).append(") ORDER BY created, seq");
        return all(c, sql.toString(), JdbcSandboxes::record, args.toArray()).stream()
                .filter(q::matches)
                .toList();
    }

    static boolean updateRecord(Connection c, SandboxRecord r) throws SQLException {
        return JdbcSettingsStore.update(
                        c,
                        "UPDATE sandboxes SET labels = ?, services = ?, containers = ?, expires = ?"
                                + " WHERE id = ? AND deleted IS NULL",
                        write(r.labels()),
                        write(r.services()),
                        write(r.containers()),
                        ts(r.expires()),
                        r.id())
                == 1;
    }

    static boolean markDeleted(Connection c, String id, Instant when, String reason, boolean onlyIfExpired)
            throws SQLException {
        String sql = "UPDATE sandboxes SET deleted = ?, deleted_reason = ? WHERE id = ? AND deleted IS NULL"
                + (onlyIfExpired ? " AND expires <= ?" : "");
        return onlyIfExpired
                ? JdbcSettingsStore.update(c, sql, ts(when), reason, id, ts(when)) == 1
                : JdbcSettingsStore.update(c, sql, ts(when), reason, id) == 1;
    }

    static void forget(Connection c, String id) throws SQLException {
        JdbcSettingsStore.update(c, "DELETE FROM sandboxes WHERE id = ?", id);
    }

    static int prune(Connection c, Instant before, int batch) throws SQLException {
        return JdbcSettingsStore.update(
                c,
                "DELETE FROM sandboxes WHERE id IN (SELECT id FROM sandboxes WHERE deleted IS NOT NULL"
                        + " AND deleted < ? ORDER BY deleted LIMIT ?)",
                ts(before),
                batch);
    }

    static void heartbeat(Connection c, DatabaseUrl.Kind kind, String instance, Instant now) throws SQLException {
        if (JdbcSettingsStore.update(c, "UPDATE instances SET heartbeat = ? WHERE id = ?", ts(now), instance) == 0) {
            if (kind == DatabaseUrl.Kind.POSTGRES) {
                JdbcSettingsStore.update(
                        c,
                        "INSERT INTO instances (id, heartbeat) VALUES (?, ?) ON CONFLICT (id) DO UPDATE"
                                + " SET heartbeat = EXCLUDED.heartbeat",
                        instance,
                        ts(now));
            } else {
                JdbcSettingsStore.update(c, "INSERT INTO instances (id, heartbeat) VALUES (?, ?)", instance, ts(now));
            }
        }
    }

    static Map<String, Instant> heartbeats(Connection c) throws SQLException {
        Map<String, Instant> out = new TreeMap<>();
        for (Map.Entry<String, Instant> e : all(
                c,
                "SELECT id, heartbeat FROM instances",
                rs -> Map.entry(
                        rs.getString(1), rs.getObject(2, OffsetDateTime.class).toInstant()))) {
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    private static void filter(StringBuilder sql, List<Object> args, String column, String value) {
        if (value != null && !value.isBlank()) {
            sql.append(" AND ").append(column).append(" = ?");
            args.add(value);
        }
    }

    private static SandboxRecord record(ResultSet rs) throws SQLException {
        OffsetDateTime deleted = rs.getObject(13, OffsetDateTime.class);
        return new SandboxRecord(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                SandboxRecord.Kind.valueOf(rs.getString(5)),
                read(rs.getString(6), LABELS),
                read(rs.getString(7), STRINGS),
                read(rs.getString(8), CONTAINERS),
                rs.getString(9),
                rs.getObject(10, OffsetDateTime.class).toInstant(),
                rs.getObject(11, OffsetDateTime.class).toInstant(),
                rs.getObject(12, OffsetDateTime.class).toInstant(),
                deleted == null ? null : deleted.toInstant(),
                rs.getString(14));
    }

    static OffsetDateTime ts(Instant instant) {
        return OffsetDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
    }

    /** 64 bits of SHA-256 over the namespace and key, mixed into our lock space. */
    private static long lockKey(String namespace, String key) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256")
                    .digest((namespace + ":" + key).getBytes(StandardCharsets.UTF_8));
            long h = 0;
            for (int i = 0; i < 8; i++) {
                h = (h << 8) | (d[i] & 0xff);
            }
            return h ^ LOCK_SPACE;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }
}
