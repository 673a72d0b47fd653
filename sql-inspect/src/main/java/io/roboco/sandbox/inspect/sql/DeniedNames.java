package io.roboco.sandbox.inspect.sql;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Functions and catalog relations an inspection never names, each group with the reason a refusal gives.
 * A name is refused wherever it appears as a word or quoted identifier, called or not: the guard does not
 * try to tell a call from a mention.
 */
final class DeniedNames {
    /** A group of names (exact or {@code prefix*}) and why they are refused. */
    private record Group(List<String> names, String why) {}

    private static final List<Group> FUNCTIONS = List.of(
            new Group(List.of("pg_sleep*"), "it sleeps and ties up the connection"),
            new Group(
                    List.of(
                            "pg_read_file",
                            "pg_read_binary_file",
                            "pg_ls_*",
                            "pg_stat_file",
                            "lo_import",
                            "lo_export",
                            "pg_file_*",
                            "pg_logdir_ls"),
                    "it reads or writes files on the database server"),
            new Group(
                    List.of(
                            "pg_terminate_backend",
                            "pg_cancel_backend",
                            "pg_signal_backend",
                            "pg_reload_conf",
                            "pg_rotate_logfile*",
                            "pg_log_backend_memory_contexts",
                            "pg_promote"),
                    "it signals server processes"),
            new Group(
                    List.of("pg_advisory_*", "pg_try_advisory_*"),
                    "it takes advisory locks, and session-level ones outlive the rolled-back transaction"),
            new Group(List.of("set_config"), "it changes settings"),
            new Group(List.of("nextval", "setval"), "it bumps a sequence, which no rollback undoes"),
            new Group(
                    List.of(
                            "query_to_xml*",
                            "query_to_xmlschema",
                            "cursor_to_xml*",
                            "table_to_xml*",
                            "schema_to_xml*",
                            "database_to_xml*",
                            "ts_stat",
                            "ts_rewrite",
                            "dblink*"),
                    "it runs SQL given as text (or dumps whole tables), out of the guard's sight"),
            new Group(
                    List.of("lo_create", "lo_creat", "lo_unlink", "lo_put", "lo_from_bytea", "lo_truncate*", "lowrite"),
                    "it writes large objects"),
            new Group(List.of("pg_notify"), "it sends notifications to other sessions"),
            new Group(
                    List.of(
                            "pg_stat_reset*",
                            "pg_switch_wal",
                            "pg_create_restore_point",
                            "pg_backup_*",
                            "pg_start_backup",
                            "pg_stop_backup",
                            "pg_logical_emit_message",
                            "pg_create_*_replication_slot",
                            "pg_drop_replication_slot",
                            "pg_copy_*_replication_slot",
                            "pg_replication_slot_advance",
                            "pg_replication_origin_*",
                            "pg_logical_slot_*",
                            "pg_wal_replay_*",
                            "pg_import_system_collations"),
                    "it is a server administration function"));

    private static final List<Group> RELATIONS = List.of(
            new Group(
                    List.of("pg_stats", "pg_stats_ext", "pg_stats_ext_exprs", "pg_statistic", "pg_statistic_ext_data"),
                    "its statistics hold sampled column values, denied columns included"),
            new Group(
                    List.of("pg_authid", "pg_shadow", "pg_user_mapping", "pg_user_mappings"), "it holds credentials"));

    /** Why a name is refused, and which rule refuses it. */
    record Denial(String rule, String reason) {}

    private static final Map<Pattern, Denial> PATTERNS = new LinkedHashMap<>();

    static {
        FUNCTIONS.forEach(g -> index(g, Violation.DENIED_FUNCTION, "function"));
        RELATIONS.forEach(g -> index(g, Violation.DENIED_RELATION, "catalog view"));
    }

    private DeniedNames() {}

    private static void index(Group g, String rule, String what) {
        for (String name : g.names()) {
            PATTERNS.put(Glob.compile(name), new Denial(rule, what + ": " + g.why()));
        }
    }

    /** Why {@code name} (an identifier as Postgres resolves it) is refused, if it is. */
    static Optional<Denial> reason(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return PATTERNS.entrySet().stream()
                .filter(e -> e.getKey().matcher(lower).matches())
                .map(Map.Entry::getValue)
                .findFirst();
    }

    /**
     * Functions that take a whole row (a composite, {@code record}, {@code anyelement} or {@code "any"}) and give back its
     * values in another shape; {@code u.f} is attribute notation for {@code f(u)}, so {@code u.to_jsonb} is refused
     * where {@code u} is a table's row. Type names ({@code u.text}, {@code u.name}) can be real columns too: those casts are
     * caught by the plan check under the guard, which sees what Postgres resolved.
     */
    static final Set<String> ROW_FUNCTIONS = Set.of(
            "to_json",
            "to_jsonb",
            "row_to_json",
            "hstore",
            "quote_literal",
            "quote_nullable",
            "concat",
            "concat_ws",
            "format",
            "record_out",
            "record_send",
            "hashrecord",
            "hash_record",
            "hashrecordextended",
            "hash_record_extended",
            "json_build_array",
            "jsonb_build_array",
            "json_build_object",
            "jsonb_build_object",
            "array_to_json",
            "num_nulls",
            "num_nonnulls",
            "pg_column_size",
            "pg_typeof",
            "textin");

    /** Words that only write, define, lock or control transactions; refused anywhere in an inspection statement. */
    static final Set<String> WRITE_WORDS = Set.of(
            "insert",
            "update",
            "delete",
            "merge",
            "truncate",
            "copy",
            "create",
            "alter",
            "drop",
            "grant",
            "revoke",
            "comment",
            "security",
            "reassign",
            "vacuum",
            "analyze",
            "analyse",
            "cluster",
            "reindex",
            "refresh",
            "checkpoint",
            "load",
            "import",
            "lock",
            "call",
            "do",
            "execute",
            "prepare",
            "deallocate",
            "discard",
            "declare",
            "listen",
            "unlisten",
            "notify",
            "set",
            "reset",
            "begin",
            "commit",
            "rollback",
            "abort",
            "savepoint");
}
