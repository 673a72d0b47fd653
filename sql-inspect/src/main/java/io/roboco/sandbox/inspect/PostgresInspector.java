package io.roboco.sandbox.inspect;

import io.roboco.sandbox.inspect.plan.IndexAdvisor;
import io.roboco.sandbox.inspect.plan.PlanJson;
import io.roboco.sandbox.inspect.plan.PlanSummarizer;
import io.roboco.sandbox.inspect.plan.PlanSummary;
import io.roboco.sandbox.inspect.plan.ResolvedColumns;
import io.roboco.sandbox.inspect.sql.GuardVerdict;
import io.roboco.sandbox.inspect.sql.QueryGuard;
import io.roboco.sandbox.inspect.sql.Violation;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Postgres inspection tools of one sandbox (pgscout parity): list_schemas, list_tables, describe_table,
 * run_readonly_query, explain_query and suggest_indexes. Every call is checked by the {@link QueryGuard}
 * where it carries SQL, then runs in a proven read-only transaction that is rolled back
 * ({@link ReadOnlySession}); whatever comes from the database is returned inside an {@link Untrusted}
 * envelope with a tag fresh for the call.
 *
 * <p>One inspector per sandbox: it holds one connection (opened on first use, re-opened and re-proven after
 * it breaks) and serialises its calls. Never throws for an expected outcome: see {@link Outcome}.
 */
public final class PostgresInspector implements AutoCloseable {
    /** Rule of a refusal because read-only could not be proven on the connection. */
    public static final String READ_ONLY_UNPROVEN = "read_only_unproven";

    public static final String INVALID_ARGUMENT = "invalid_argument";
    public static final String NOT_FOUND = "not_found";
    private static final String QUERY_CANCELED = "57014";

    private final PostgresTarget target;
    private final InspectionPolicy policy;
    private final QueryGuard guard;
    private ReadOnlySession session;

    private PostgresInspector(PostgresTarget target, InspectionPolicy policy) {
        this.target = target;
        this.policy = policy;
        this.guard = policy.guard();
    }

    public static PostgresInspector of(PostgresTarget target, InspectionPolicy policy) {
        return new PostgresInspector(target, policy);
    }

    public InspectionPolicy policy() {
        return policy;
    }

    /** {@code list_schemas}. */
    public synchronized Outcome<SchemaList> listSchemas() {
        return call(ReadOnlySession.CATALOG_PATH, (s, tag) -> {
            List<SchemaList.Schema> schemas = Catalog.schemas(s);
            boolean truncated = schemas.size() > Catalog.MAX_LISTED;
            schemas = truncated ? schemas.subList(0, Catalog.MAX_LISTED) : schemas;
            return new Outcome.Ok<>(new SchemaList(Untrusted.of(tag, schemas), schemas.size(), truncated));
        });
    }

    /** {@code list_tables}; {@code schema} null for every user schema. */
    public synchronized Outcome<TableList> listTables(String schema) {
        String wanted = schema == null || schema.isBlank() ? null : schema;
        return call(ReadOnlySession.CATALOG_PATH, (s, tag) -> {
            if (wanted != null && !Catalog.schemaExists(s, wanted)) {
                return refused(NOT_FOUND, "no schema named '" + wanted + "'; list_schemas shows the schemas there are");
            }
            List<TableList.Table> tables = Catalog.tables(s, wanted);
            boolean truncated = tables.size() > Catalog.MAX_LISTED;
            tables = truncated ? tables.subList(0, Catalog.MAX_LISTED) : tables;
            return new Outcome.Ok<>(new TableList(Untrusted.of(tag, tables), tables.size(), truncated));
        });
    }

    /** {@code describe_table}; {@code schema} null for {@code public}. */
    public synchronized Outcome<TableDescription> describeTable(String schema, String table) {
        if (table == null || table.isBlank()) {
            return refused(INVALID_ARGUMENT, "describe_table needs a table name (list_tables shows them)");
        }
        String inSchema = schema == null || schema.isBlank() ? "public" : schema;
        return call(ReadOnlySession.CATALOG_PATH, (s, tag) -> {
            Optional<Catalog.Relation> found = Catalog.relation(s, inSchema, table);
            if (found.isEmpty()) {
                return refused(
                        NOT_FOUND,
                        "no table or view named '" + table + "' in schema '" + inSchema
                                + "' (names are case-sensitive here, as stored); list_tables shows what exists");
            }
            Catalog.Relation r = found.get();
            List<TableDescription.Column> columns = Catalog.columns(s, r.oid(), policy.deniedColumns());
            TableDescription.Detail detail = new TableDescription.Detail(
                    r.schema(),
                    r.name(),
                    r.kind(),
                    columns,
                    Catalog.indexes(s, r.oid()),
                    Catalog.foreignKeys(s, r.oid()));
            int denied = (int)
                    columns.stream().filter(TableDescription.Column::denied).count();
            return new Outcome.Ok<>(new TableDescription(Untrusted.of(tag, detail), columns.size(), denied));
        });
    }

    /** {@code run_readonly_query} with the policy's row cap. */
    public synchronized Outcome<QueryResult> runReadonlyQuery(String sql) {
        return runReadonlyQuery(sql, policy.maxRows());
    }

    /** {@code run_readonly_query} asking for at most {@code maxRows} rows (never more than the policy allows). */
    public synchronized Outcome<QueryResult> runReadonlyQuery(String sql, int maxRows) {
        if (maxRows < 1 || maxRows > policy.maxRows()) {
            return refused(INVALID_ARGUMENT, "max_rows must be between 1 and " + policy.maxRows() + ", got " + maxRows);
        }
        GuardVerdict verdict = guard.check(sql);
        if (verdict instanceof GuardVerdict.Refused r) {
            return refused(r);
        }
        RowReader reader =
                new RowReader(maxRows, policy.maxResultBytes(), policy.maxCellBytes(), policy.deniedColumns());
        boolean readsRows = !((GuardVerdict.Allowed) verdict).kind().equals("explain");
        return call(null, (s, tag) -> {
            long start = System.nanoTime();
            if (readsRows) {
                Optional<Violation> resolved = ResolvedColumns.check(
                        PlanJson.parse(s.text("EXPLAIN (VERBOSE, FORMAT JSON) " + sql)), policy.deniedColumns());
                if (resolved.isPresent()) {
                    return refused(resolved.get().rule(), resolved.get().reason());
                }
            }
            RowReader.Rows rows = s.rows(sql, reader);
            long elapsed = (System.nanoTime() - start) / 1_000_000;
            List<QueryResult.CutCell> cuts = rows.cuts().stream()
                    .map(c -> new QueryResult.CutCell(c.row(), c.column(), c.bytes()))
                    .toList();
            return new Outcome.Ok<>(new QueryResult(
                    Untrusted.of(tag, new QueryResult.Rows(rows.columns(), rows.rows(), rows.redacted())),
                    rows.rows().size(),
                    rows.truncated(),
                    rows.truncatedBy(),
                    maxRows,
                    rows.bytes(),
                    cuts,
                    rows.redacted().size(),
                    elapsed));
        });
    }

    /**
     * {@code explain_query}: {@code sql} is one SELECT or WITH; this wraps it in {@code EXPLAIN (FORMAT JSON)}
     * ({@code EXPLAIN (ANALYZE, FORMAT JSON)} when asked and the policy allows it).
     */
    public synchronized Outcome<ExplainResult> explainQuery(String sql, boolean analyze, boolean includeRawPlan) {
        if (analyze && !policy.allowExplainAnalyze()) {
            return refused(
                    Violation.EXPLAIN_ANALYZE,
                    "EXPLAIN ANALYZE executes the statement, and this project does not allow it; "
                            + "call explain_query without analyze for the plan");
        }
        Optional<String> explain = explainText(sql, analyze ? "ANALYZE, FORMAT JSON" : "FORMAT JSON");
        if (explain.isEmpty()) {
            return refused(guardRefusal(sql));
        }
        return call(null, (s, tag) -> {
            String json = s.text(explain.get());
            Object parsed = PlanJson.parse(json);
            PlanSummary summary = PlanSummarizer.summarize(parsed);
            Object raw = null;
            String omitted = null;
            if (includeRawPlan) {
                int size = json.getBytes(StandardCharsets.UTF_8).length;
                if (size <= policy.maxResultBytes()) {
                    raw = parsed;
                } else {
                    omitted = "the raw plan has " + size + " bytes, over max_result_bytes (" + policy.maxResultBytes()
                            + "); the summary stands for it";
                }
            }
            return new Outcome.Ok<>(new ExplainResult(
                    Untrusted.of(tag, new ExplainResult.Report(summary, raw)),
                    summary.totalCost(),
                    summary.nodeCount(),
                    summary.seqScans().size(),
                    analyze,
                    omitted));
        });
    }

    /** {@code suggest_indexes}: plans {@code sql} (one SELECT or WITH; not executed) and proposes indexes for its filtered sequential scans. */
    public synchronized Outcome<IndexSuggestions> suggestIndexes(String sql) {
        Optional<String> explain = explainText(sql, "VERBOSE, FORMAT JSON");
        if (explain.isEmpty()) {
            return refused(guardRefusal(sql));
        }
        return call(null, (s, tag) -> {
            PlanSummary summary = PlanSummarizer.summarize(s.text(explain.get()));
            Map<String, Optional<IndexAdvisor.RelationFacts>> facts = new HashMap<>();
            for (PlanSummary.SeqScan scan : summary.seqScans()) {
                if (scan.schema() != null && scan.filter() != null) {
                    String key = scan.schema() + "\0" + scan.relation();
                    if (!facts.containsKey(key)) {
                        facts.put(key, Catalog.facts(s, scan.schema(), scan.relation()));
                    }
                }
            }
            IndexAdvisor.Advice advice = IndexAdvisor.advise(
                    summary.seqScans(),
                    scan -> facts.getOrDefault(scan.schema() + "\0" + scan.relation(), Optional.empty()));
            return new Outcome.Ok<>(new IndexSuggestions(
                    Untrusted.of(tag, advice),
                    advice.suggestions().size(),
                    summary.seqScans().size()));
        });
    }

    /** {@code EXPLAIN (options) sql} when {@code sql} passes the guard as an explainable statement and the whole text passes too. */
    private Optional<String> explainText(String sql, String options) {
        if (!(guard.checkExplainable(sql) instanceof GuardVerdict.Allowed)) {
            return Optional.empty();
        }
        String text = "EXPLAIN (" + options + ") " + sql;
        return guard.check(text) instanceof GuardVerdict.Allowed ? Optional.of(text) : Optional.empty();
    }

    private GuardVerdict.Refused guardRefusal(String sql) {
        GuardVerdict verdict = guard.checkExplainable(sql);
        return verdict instanceof GuardVerdict.Refused r
                ? r
                : new GuardVerdict.Refused(List.of(new Violation(
                        Violation.SYNTAX, "the statement cannot be wrapped in EXPLAIN; send one SELECT or WITH")));
    }

    // --- one call: a session, a read-only transaction, outcomes as values ----------------------------------

    private interface Call<T extends InspectionResult> {
        Outcome<T> run(ReadOnlySession session, String tag) throws SQLException, StatementRefusedException;
    }

    private <T extends InspectionResult> Outcome<T> call(String searchPath, Call<T> call) {
        String tag = Untrusted.newTag();
        ReadOnlySession s;
        try {
            s = session();
        } catch (NotReadOnlyException e) {
            return refused(READ_ONLY_UNPROVEN, e.getMessage());
        } catch (SQLException e) {
            return unavailable(tag, e);
        }
        try {
            return s.inTransaction(searchPath, x -> call.run(x, tag));
        } catch (StatementRefusedException e) {
            return refused(e.rule(), e.getMessage());
        } catch (NotReadOnlyException e) {
            drop();
            return refused(READ_ONLY_UNPROVEN, e.getMessage());
        } catch (SQLException e) {
            if (s.isBroken()) {
                drop();
                return unavailable(tag, e);
            }
            return failed(tag, e);
        } catch (IllegalArgumentException e) {
            return new Outcome.Failed<>(
                    "the database's EXPLAIN output could not be read (" + e.getMessage() + ")", null, null, false);
        }
    }

    private ReadOnlySession session() throws SQLException, NotReadOnlyException {
        if (session == null || session.isBroken()) {
            drop();
            session = ReadOnlySession.open(target, policy);
        }
        return session;
    }

    private void drop() {
        if (session != null) {
            session.close();
            session = null;
        }
    }

    private <T extends InspectionResult> Outcome<T> failed(String tag, SQLException e) {
        String state = e.getSQLState();
        String reason;
        if (QUERY_CANCELED.equals(state)) {
            reason = "the statement ran longer than statement_timeout ("
                    + policy.statementTimeout().toMillis()
                    + " ms) and was cancelled; narrow it (a WHERE clause, a LIMIT) or look at its plan with explain_query";
        } else if ("25006".equals(state)) {
            reason = "the database refused a write: inspection runs read-only; to change data use your own connection";
        } else if ("42501".equals(state)) {
            reason = "the sandbox's role lacks the privilege for this statement";
        } else {
            reason = "the database refused the statement (SQLSTATE " + state + "); its message is in database_error";
        }
        return new Outcome.Failed<>(reason, state, Untrusted.of(tag, message(e)), false);
    }

    private <T extends InspectionResult> Outcome<T> unavailable(String tag, SQLException e) {
        return new Outcome.Failed<>(
                "the sandbox's Postgres at " + target.host() + ":" + target.port()
                        + " could not be reached; retry shortly "
                        + "(request_sandbox re-checks a sandbox and replaces a dead one)",
                e.getSQLState(),
                Untrusted.of(tag, message(e)),
                true);
    }

    private String message(SQLException e) {
        String text = String.valueOf(e.getMessage());
        return RowReader.cutToBytes(text, policy.maxCellBytes());
    }

    private static <T extends InspectionResult> Outcome<T> refused(GuardVerdict.Refused r) {
        return new Outcome.Refused<>(
                r.rule(), r.violations().stream().map(Violation::reason).toList());
    }

    private static <T extends InspectionResult> Outcome<T> refused(String rule, String reason) {
        return new Outcome.Refused<>(rule, List.of(reason));
    }

    @Override
    public synchronized void close() {
        drop();
    }
}
