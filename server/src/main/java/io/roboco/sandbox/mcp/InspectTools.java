package io.roboco.sandbox.mcp;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.guard.AgentOperation;
import io.roboco.sandbox.inspect.InspectionResult;
import io.roboco.sandbox.inspect.MongoInspector;
import io.roboco.sandbox.inspect.Outcome;
import io.roboco.sandbox.inspect.PostgresInspector;
import io.roboco.sandbox.inspect.RedisInspector;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The inspection tools (pgscout parity) on the caller's own sandbox, which the gate resolved: list_schemas,
 * list_tables, describe_table, run_readonly_query, explain_query and suggest_indexes on its Postgres, and
 * describe_sandbox on its Redis and Mongo. The work is the inspect library's (the SQL guard, the proven
 * read-only session, caps, the untrusted-data envelope); this class only maps arguments in and outcomes
 * out. Structured content is the library's envelope; the text is its trusted summary followed by the
 * database's content between the per-call untrusted-data markers.
 */
final class InspectTools {
    static final List<String> NAMES = List.of(
            "list_schemas",
            "list_tables",
            "describe_table",
            "run_readonly_query",
            "explain_query",
            "suggest_indexes",
            "describe_sandbox");
    private static final int MAX_SQL = 20_000;

    private final Inspectors inspectors;
    private final int rowCap;
    private final EngineRegistry registry;

    InspectTools(Inspectors inspectors, int rowCap, EngineRegistry registry) {
        this.registry = registry;
        this.inspectors = inspectors;
        this.rowCap = rowCap;
    }

    List<ToolSpec> specs() {
        Map<String, Object> schema = McpTools.string("a schema name, e.g. public", null, 63);
        Map<String, Object> sandbox =
                McpTools.string("a sandbox id of yours (list_sandboxes); default: your request_sandbox set", null, 64);
        Map<String, Object> sql =
                McpTools.string("one SELECT, WITH or EXPLAIN statement (read-only; never rewritten)", null, MAX_SQL);
        Map<String, Object> maxRows = new LinkedHashMap<>();
        maxRows.put("type", "integer");
        maxRows.put("minimum", 1);
        maxRows.put("maximum", rowCap);
        maxRows.put(
                "description",
                "at most this many rows (default and most: " + rowCap + "); more are cut and flagged truncated");
        Map<String, Object> service = new LinkedHashMap<>();
        service.put("type", "string");
        service.put("enum", List.of("redis", "mongo"));
        service.put(
                "description", "which service to describe (default: every Redis and Mongo service of your sandbox)");
        return List.of(
                tool(
                        "list_schemas",
                        "List schemas",
                        "The schemas of your sandbox's Postgres database (system schemas left out).",
                        McpTools.object(Map.of("sandbox", sandbox), List.of()),
                        call -> pg(call).listSchemas()),
                tool(
                        "list_tables",
                        "List tables",
                        "Tables, views and materialized views of your sandbox's Postgres, with"
                                + " estimated rows and sizes; all user schemas, or one.",
                        McpTools.object(Map.of("schema", schema, "sandbox", sandbox), List.of()),
                        call -> pg(call).listTables(call.string("schema"))),
                tool(
                        "describe_table",
                        "Describe a table",
                        "Columns (type, nullability, default), indexes and foreign keys of"
                                + " one table or view of your sandbox's Postgres.",
                        McpTools.object(
                                Map.of(
                                        "schema",
                                        schema,
                                        "sandbox",
                                        sandbox,
                                        "table",
                                        McpTools.string("the table or view, as stored (case-sensitive)", null, 63)),
                                List.of("table")),
                        call -> pg(call).describeTable(call.string("schema"), call.string("table"))),
                tool(
                        "run_readonly_query",
                        "Run a read-only query",
                        "Run one SELECT/WITH on your sandbox's Postgres in a read-only"
                                + " transaction that is rolled back. Writes, DDL, row locks, settings and side-effect functions are"
                                + " refused; denied columns (e.g. *password*, *token*) are refused or redacted; rows are capped.",
                        McpTools.object(Map.of("sql", sql, "max_rows", maxRows, "sandbox", sandbox), List.of("sql")),
                        call -> {
                            Object n = call.arguments().get("max_rows");
                            return n instanceof Number rows
                                    ? pg(call).runReadonlyQuery(call.string("sql"), rows.intValue())
                                    : pg(call).runReadonlyQuery(call.string("sql"));
                        }),
                tool(
                        "explain_query",
                        "Explain a query",
                        "EXPLAIN (FORMAT JSON) of one SELECT/WITH on your sandbox's Postgres,"
                                + " summarised: total cost, node counts, sequential scans, warnings; the raw plan on request."
                                + " ANALYZE only where the project allows it.",
                        McpTools.object(
                                Map.of(
                                        "sql",
                                        sql,
                                        "sandbox",
                                        sandbox,
                                        "analyze",
                                        Map.of(
                                                "type",
                                                "boolean",
                                                "description",
                                                "EXPLAIN ANALYZE (executes the statement); off unless the project allows it"),
                                        "include_raw_plan",
                                        Map.of(
                                                "type",
                                                "boolean",
                                                "description",
                                                "also return the plan JSON (within the byte cap)")),
                                List.of("sql")),
                        call -> pg(call).explainQuery(
                                        call.string("sql"),
                                        Boolean.TRUE.equals(call.arguments().get("analyze")),
                                        Boolean.TRUE.equals(call.arguments().get("include_raw_plan")))),
                tool(
                        "suggest_indexes",
                        "Suggest indexes",
                        "Plan one SELECT/WITH (not executed) and suggest CREATE INDEX"
                                + " CONCURRENTLY statements for its filtered sequential scans. Suggestions only: nothing is created.",
                        McpTools.object(Map.of("sql", sql, "sandbox", sandbox), List.of("sql")),
                        call -> pg(call).suggestIndexes(call.string("sql"))),
                new ToolSpec(
                        "describe_sandbox",
                        "Describe Redis / Mongo",
                        "Your sandbox's Redis (key count, modules, memory)"
                                + " and Mongo (collections and document counts). No values or documents are read.",
                        McpTools.object(Map.of("service", service, "sandbox", sandbox), List.of()),
                        true,
                        false,
                        true,
                        ToolSpec.Audience.AGENT,
                        ToolSpec.Scope.OWN_SANDBOX,
                        this::describeSandbox,
                        AgentOperation.INSPECT));
    }

    private static ToolSpec tool(
            String name,
            String title,
            String description,
            Map<String, Object> schema,
            Function<ToolCall, Outcome<?>> run) {
        return new ToolSpec(
                name,
                title,
                description,
                schema,
                true,
                false,
                true,
                ToolSpec.Audience.AGENT,
                ToolSpec.Scope.OWN_SANDBOX,
                call -> {
                    try {
                        return result(name, run.apply(call));
                    } catch (NoService e) {
                        return e.result;
                    }
                },
                AgentOperation.INSPECT);
    }

    /** The inspector of the caller's sandbox's Postgres; {@link NoService} when the sandbox has none. */
    private PostgresInspector pg(ToolCall call) {
        ScopedSandbox.Access postgres = access(call).get("postgres");
        if (postgres == null) {
            throw new NoService(call.tool(), "postgres", call.sandbox().services());
        }
        for (String key : List.of("HOST", "PORT", "NAME", "USER", "PASSWORD")) {
            if (postgres.env().get("ROBOCO_TEST_DB_" + key) == null) {
                throw new NoService(
                        call.tool(),
                        call.sandbox().id() + "'s postgres lacks ROBOCO_TEST_DB_" + key + " in its env",
                        true);
            }
        }
        return inspectors.of(postgres, call.policy());
    }

    /** The sandbox's access; {@link NoService} when this server does not hold its credentials (a named one made elsewhere). */
    private static Map<String, ScopedSandbox.Access> access(ToolCall call) {
        if (!call.sandbox().held()) {
            throw new NoService(call.tool(), call.sandbox().id());
        }
        return call.sandbox().access();
    }

    private ToolResult describeSandbox(ToolCall call) {
        String only = call.string("service");
        Map<String, ScopedSandbox.Access> services;
        try {
            services = new TreeMap<>(access(call));
        } catch (NoService e) {
            return e.result;
        }
        List<String> wanted = (only != null ? List.of(only) : List.of("mongo", "redis"))
                .stream().filter(services::containsKey).toList();
        if (wanted.isEmpty()) {
            String reason = "your sandbox has no " + (only != null ? only : "Redis or Mongo") + " (it has "
                    + String.join(", ", services.keySet()) + "); list_tables and describe_table look at Postgres";
            return ToolResult.failed(Gate.failure("refused", reason, false), reason);
        }
        Map<String, Object> described = new LinkedHashMap<>();
        StringBuilder text = new StringBuilder();
        for (String name : wanted) {
            Map<String, String> env = services.get(name).env();
            Outcome<?> outcome = name.equals("redis")
                    ? RedisInspector.describe(
                            registry.require(name),
                            env.get("ROBOCO_TEST_REDIS_HOST"),
                            Integer.parseInt(env.get("ROBOCO_TEST_REDIS_PORT")),
                            env.get("ROBOCO_TEST_REDIS_USER"),
                            env.get("ROBOCO_TEST_REDIS_PASSWORD"))
                    : MongoInspector.describe(env.get("ROBOCO_TEST_MONGO_URL"), env.get("ROBOCO_TEST_MONGO_NAME"));
            if (!(outcome instanceof Outcome.Ok<?>)) {
                return result("describe_sandbox", outcome);
            }
            described.put(name, outcome.toEnvelope("describe_sandbox").get("evidence"));
            InspectionResult r = ((Outcome.Ok<?>) outcome).result();
            text.append(name)
                    .append(": ")
                    .append(r.summary())
                    .append('\n')
                    .append(r.data().text())
                    .append('\n');
        }
        Map<String, Object> envelope = new LinkedHashMap<>();
        envelope.put("ok", true);
        envelope.put("tool", "describe_sandbox");
        envelope.put("evidence", Map.of("services", described));
        return ToolResult.ok(envelope, text.toString().strip()).withServices(wanted);
    }

    /** An outcome as a tool result: trusted summary or reason first, the database's content inside its envelope after. */
    static ToolResult result(String tool, Outcome<?> outcome) {
        Map<String, Object> envelope = outcome.toEnvelope(tool);
        if (outcome instanceof Outcome.Ok<?> ok) {
            InspectionResult r = ok.result();
            return new ToolResult(
                    false, envelope, r.summary() + "\n" + r.data().text(), "ok: " + r.summary(), List.of("postgres"));
        }
        if (outcome instanceof Outcome.Refused<?> refused) {
            String reason = "refused (" + refused.rule() + "): " + refused.reason();
            return new ToolResult(true, envelope, reason, reason, List.of("postgres"));
        }
        Outcome.Failed<?> failed = (Outcome.Failed<?>) outcome;
        String reason = envelope.get("error") + ": " + failed.reason();
        String text = failed.databaseError() == null
                ? reason
                : reason + "\n" + failed.databaseError().text();
        return new ToolResult(true, envelope, text, reason, List.of("postgres"));
    }

    /** The caller's sandbox lacks the service a tool needs: a tool error, not a fault. */
    static final class NoService extends RuntimeException {
        final ToolResult result;

        /** The connection values are incomplete (an engine whose env this tool cannot read). */
        NoService(String tool, String why, boolean incomplete) {
            super(null, null, false, false);
            String reason = tool + " cannot connect: " + why;
            this.result = ToolResult.failed(Gate.failure("refused", reason, false), reason);
        }

        /** A named sandbox whose credentials this server does not hold. */
        NoService(String tool, String sandboxId) {
            super(null, null, false, false);
            String reason = "this server does not hold the credentials of sandbox " + sandboxId
                    + ": a named sandbox's are answered once,"
                    + " when it is created, and held only for those this server made since it started or re-adopted after a restart; "
                    + tool
                    + " needs them. Use your own connection with the credentials you were given, or release it and request a new one";
            this.result = ToolResult.failed(Gate.failure("refused", reason, false), reason);
        }

        NoService(String tool, String service, Collection<String> has) {
            super(null, null, false, false);
            String reason = "your sandbox has no " + service + " (it has "
                    + String.join(", ", new TreeSet<>(has)) + "), so " + tool + " has nothing to look at"
                    + (service.equals("postgres") ? "; describe_sandbox looks at Redis and Mongo" : "");
            this.result = ToolResult.failed(Gate.failure("refused", reason, false), reason);
        }
    }
}
