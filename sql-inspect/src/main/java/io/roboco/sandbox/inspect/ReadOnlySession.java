package io.roboco.sandbox.inspect;

import io.roboco.sandbox.inspect.sql.Violation;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.CachedQuery;
import org.postgresql.core.Query;
import org.postgresql.core.QueryExecutor;

/**
 * One pgjdbc connection that has proven it cannot write, and the discipline every call on it follows: the
 * layer under the guard, which holds even where the guard is wrong.
 * <ul>
 *   <li>On open, a write ({@value #WRITE_PROBE}) is attempted inside a READ ONLY transaction; it must fail
 *       with SQLSTATE 25006, or the session refuses to exist.</li>
 *   <li>Each call is a READ ONLY transaction with local statement, lock and idle timeouts, checked to be
 *       read-only and to use standard-conforming strings, and always rolled back. Session advisory locks
 *       (the one effect that outlives a rollback) are released at the start of every call.</li>
 *   <li>A statement is sent through the extended query protocol as a prepared statement (preferQueryMode
 *       extended), so Postgres refuses a text holding several commands. pgjdbc splits text at top-level
 *       semicolons itself, even for a prepared statement, and would then send each part as its own command
 *       ({@code SELECT 1; COMMIT; DELETE …} escapes the transaction that way); so the driver's own parse of
 *       the text is checked first, and anything it would send as more than one statement is refused.</li>
 * </ul>
 */
final class ReadOnlySession implements AutoCloseable {
    static final String WRITE_PROBE = "CREATE TABLE roboco_inspect_write_probe ()";
    static final String CATALOG_PATH = "pg_catalog, pg_temp";
    private static final String READ_ONLY_SQL_TRANSACTION = "25006";

    private final Connection connection;
    private final InspectionPolicy policy;

    private ReadOnlySession(Connection connection, InspectionPolicy policy) {
        this.connection = connection;
        this.policy = policy;
    }

    /** Opens and proves a session. */
    static ReadOnlySession open(PostgresTarget target, InspectionPolicy policy)
            throws SQLException, NotReadOnlyException {
        return open(target, policy, true);
    }

    /**
     * @param readOnlyTransactions false only in tests: transactions begin without READ ONLY, as a driver
     *                             setting or a proxy that drops it would leave them, which the probe must catch
     */
    static ReadOnlySession open(PostgresTarget target, InspectionPolicy policy, boolean readOnlyTransactions)
            throws SQLException, NotReadOnlyException {
        Connection connection = DriverManager.getConnection(url(target), properties(target, policy));
        try {
            connection.setAutoCommit(false);
            connection.setReadOnly(readOnlyTransactions);
            proveReadOnly(connection);
            return new ReadOnlySession(connection, policy);
        } catch (SQLException | NotReadOnlyException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    private static String url(PostgresTarget target) {
        String host = target.host().indexOf(':') >= 0 ? "[" + target.host() + "]" : target.host();
        return "jdbc:postgresql://" + host + ":" + target.port() + "/"
                + URLEncoder.encode(target.database(), StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static Properties properties(PostgresTarget target, InspectionPolicy policy) {
        Properties p = new Properties();
        p.setProperty("user", target.user());
        p.setProperty("password", target.password());
        p.setProperty("preferQueryMode", "extended");
        p.setProperty("prepareThreshold", "0");
        p.setProperty("readOnlyMode", "transaction");
        p.setProperty("options", "-c standard_conforming_strings=on");
        p.setProperty("connectTimeout", "5");
        p.setProperty("loginTimeout", "10");
        p.setProperty("socketTimeout", Long.toString(policy.statementTimeout().toSeconds() + 15));
        p.setProperty("sslmode", "disable");
        p.setProperty(
                "requireAuth",
                "scram-sha-256"); // mutual: only the sandbox's server can complete it (PostgresEngine.SCRAM_ONLY)
        p.setProperty("assumeMinServerVersion", "12");
        p.setProperty("ApplicationName", "roboco-sandbox-inspect");
        return p;
    }

    private static void proveReadOnly(Connection connection) throws SQLException, NotReadOnlyException {
        boolean wrote;
        String state = null;
        try (Statement s = connection.createStatement()) {
            s.execute(WRITE_PROBE);
            wrote = true;
        } catch (SQLException e) {
            wrote = false;
            state = e.getSQLState();
        } finally {
            connection.rollback();
        }
        if (wrote) {
            throw new NotReadOnlyException(
                    "a write (" + WRITE_PROBE + ") succeeded inside the inspection's READ ONLY transaction, so "
                            + "read-only is not enforced on this connection (it was rolled back); inspection refuses to serve from it");
        }
        if (!READ_ONLY_SQL_TRANSACTION.equals(state)) {
            throw new NotReadOnlyException(
                    "the write probe failed with SQLSTATE " + state + " instead of 25006 (read_only_sql_transaction), "
                            + "so read-only is not proven on this connection; inspection refuses to serve from it");
        }
    }

    /** Work inside one call's transaction. */
    interface Work<T> {
        T run(ReadOnlySession session) throws SQLException, StatementRefusedException;
    }

    /** Runs {@code work} in a fresh READ ONLY transaction with the policy's timeouts, and rolls it back whatever happens. */
    <T> T inTransaction(Work<T> work) throws SQLException, StatementRefusedException, NotReadOnlyException {
        return inTransaction(null, work);
    }

    /**
     * As {@link #inTransaction(Work)}, with {@code search_path} set for this transaction only (the catalog tools
     * use {@value #CATALOG_PATH}, so objects of the role's own schemas cannot stand in for catalog ones);
     * null keeps the role's own path, which the agent's statements resolve against.
     */
    <T> T inTransaction(String searchPath, Work<T> work)
            throws SQLException, StatementRefusedException, NotReadOnlyException {
        try {
            begin(searchPath);
            return work.run(this);
        } finally {
            if (!connection.isClosed()) {
                connection.rollback();
            }
        }
    }

    private void begin(String searchPath) throws SQLException, NotReadOnlyException {
        String timeout = policy.statementTimeout().toMillis() + "ms";
        try (PreparedStatement ps =
                connection.prepareStatement("SELECT pg_catalog.set_config('statement_timeout', ?, true), "
                        + "pg_catalog.set_config('lock_timeout', ?, true), pg_catalog.set_config('idle_in_transaction_session_timeout', ?, true), "
                        + "pg_catalog.current_setting('transaction_read_only'), pg_catalog.current_setting('standard_conforming_strings'), "
                        + "pg_catalog.pg_advisory_unlock_all(), "
                        + "pg_catalog.set_config('search_path', COALESCE(?, pg_catalog.current_setting('search_path')), true), "
                        + "pg_catalog.set_config('client_min_messages', 'notice', true)")) {
            ps.setString(1, timeout);
            ps.setString(2, timeout);
            ps.setString(3, (policy.statementTimeout().toMillis() * 2) + "ms");
            ps.setString(4, searchPath);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (!"on".equals(rs.getString(4))) {
                    throw new NotReadOnlyException(
                            "the inspection transaction is not read-only (transaction_read_only = " + rs.getString(4)
                                    + "); inspection refuses to run in it");
                }
                if (!"on".equals(rs.getString(5))) {
                    throw new NotReadOnlyException(
                            "standard_conforming_strings is " + rs.getString(5) + " on the inspection connection; "
                                    + "the guard reads SQL with it on; inspection refuses to run");
                }
            }
        }
    }

    /**
     * The statement's rows, at most {@code limits.maxRows() + 1} fetched (the extra one only to know there are
     * more). A query (SELECT, WITH, VALUES) is described first, then read in {@link BoundedSelect}'s form, so the
     * database cuts long values and the driver never holds more than about the policy's fetch budget; anything
     * else (EXPLAIN) is read as it is. Call inside {@link #inTransaction}. No guard here: this is the layer under it.
     */
    RowReader.Rows rows(String sql, RowReader reader) throws SQLException, StatementRefusedException {
        requireOneStatementForTheDriver(sql);
        int fetchBytes = policy.maxFetchBytes();
        if (BoundedSelect.wraps(sql)) {
            String body = BoundedSelect.body(sql);
            RowReader.Columns columns = null;
            try (PreparedStatement describe = connection.prepareStatement(body)) {
                ResultSetMetaData md = describe.getMetaData();
                if (md != null && md.getColumnCount() > 0) {
                    columns = RowReader.Columns.of(md);
                }
            } catch (RuntimeException e) {
                throw new StatementRefusedException(
                        Violation.SYNTAX,
                        "the JDBC driver could not describe this statement ("
                                + e.getClass().getSimpleName()
                                + "); nothing was run. Send one SELECT or WITH without parameters");
            }
            if (columns != null) {
                int chars = BoundedSelect.cellChars(columns.size(), policy.maxCellBytes(), fetchBytes);
                String wrapped = BoundedSelect.sql(body, columns.size(), chars);
                requireOneStatementForTheDriver(wrapped);
                try (PreparedStatement ps = connection.prepareStatement(wrapped)) {
                    ps.setMaxRows(reader.maxRows() + 1);
                    ps.setFetchSize(BoundedSelect.fetchSize(columns.size(), chars, fetchBytes, reader.maxRows() + 1));
                    try (ResultSet rs = ps.executeQuery()) {
                        return reader.readBounded(rs, columns);
                    }
                }
            }
        }
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setMaxRows(reader.maxRows() + 1);
            ps.setFetchSize(Math.min(reader.maxRows() + 1, 50));
            if (!ps.execute()) {
                return reader.none();
            }
            try (ResultSet rs = ps.getResultSet()) {
                return reader.read(rs);
            }
        }
    }

    /**
     * The first column of the first row of an EXPLAIN, if it fits the policy's fetch budget (for EXPLAIN output, which
     * cannot be wrapped in a query and can hold constants the planner folded, {@code repeat('x', 100000000)}, or large
     * view definitions). The EXPLAIN runs inside the database in a {@code DO} block that sends back only the plan's size
     * and, when it is within budget, the plan, as notices; a plan over budget never leaves the database. Call inside
     * {@link #inTransaction}.
     */
    String text(String sql) throws SQLException, StatementRefusedException {
        String nativeSql = requireOneStatementForTheDriver(sql);
        String tag = "roboco_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        while (nativeSql.contains(tag)) {
            tag = tag + "x";
        }
        String literal = "'" + nativeSql.replace("'", "''") + "'";
        // Every name is schema-qualified: the agent's role may put its own schema (and its own octet_length, ||, text)
        // before pg_catalog in its search_path.
        String row = "r.\"QUERY PLAN\"::pg_catalog.text";
        String block = "DO $" + tag + "$ DECLARE a pg_catalog.text[] := '{}'; n pg_catalog.int8 := 0; r record; BEGIN "
                + "FOR r IN EXECUTE " + literal + " LOOP n := n OPERATOR(pg_catalog.+) pg_catalog.octet_length(" + row
                + ") OPERATOR(pg_catalog.+) 1; "
                + "IF n OPERATOR(pg_catalog.>) " + policy.maxFetchBytes()
                + " THEN RAISE NOTICE 'roboco-size %', n; RETURN; END IF; "
                + "a := a OPERATOR(pg_catalog.||) " + row + "; END LOOP; "
                + "RAISE NOTICE 'roboco-size %', n; RAISE NOTICE '%', pg_catalog.array_to_string(a, pg_catalog.chr(10)); END $"
                + tag + "$";
        try (Statement s = connection.createStatement()) {
            s.execute(block);
            SQLWarning w = s.getWarnings();
            if (w == null || w.getMessage() == null || !w.getMessage().startsWith("roboco-size ")) {
                return null;
            }
            long size = Long.parseLong(
                    w.getMessage().substring("roboco-size ".length()).trim());
            if (size > policy.maxFetchBytes()) {
                throw new StatementRefusedException(
                        Violation.OVER_BUDGET,
                        "the plan of this statement is over " + policy.maxFetchBytes()
                                + " bytes, the most one call may bring back (ROBOCO_SANDBOX_MCP_FETCH_BYTES); the planner folded a large constant "
                                + "(e.g. repeat('x', 100000000)) or expanded a large view or function definition into it. Nothing of it was read; "
                                + "send a smaller statement");
            }
            SQLWarning plan = w.getNextWarning();
            if (plan == null || plan.getMessage() == null) {
                return null;
            }
            String text = plan.getMessage().strip();
            return text.isEmpty() ? null : text;
        }
    }

    /** A prepared statement of our own (catalog queries), with parameters. */
    PreparedStatement prepare(String sql) throws SQLException {
        return connection.prepareStatement(sql);
    }

    /** Refuses what the driver would not send as one statement; returns the text it would send (its escapes applied). */
    private String requireOneStatementForTheDriver(String sql) throws SQLException, StatementRefusedException {
        BaseConnection base = connection.unwrap(BaseConnection.class);
        if (!base.getStandardConformingStrings()) {
            throw new StatementRefusedException(
                    Violation.SYNTAX, "the connection reports standard_conforming_strings off; refusing to send SQL");
        }
        QueryExecutor executor = base.getQueryExecutor();
        CachedQuery cached;
        try {
            cached = executor.borrowQuery(sql);
        } catch (SQLException e) {
            throw new StatementRefusedException(
                    Violation.MULTIPLE_STATEMENTS,
                    "the JDBC driver cannot read this text as one statement (" + e.getMessage()
                            + "); nothing was sent. Send one statement whose quotes and comments close");
        }
        try {
            Query[] parts = cached.query.getSubqueries();
            if (parts != null && parts.length > 1) {
                throw new StatementRefusedException(
                        Violation.MULTIPLE_STATEMENTS,
                        "the JDBC driver would send this text as " + parts.length
                                + " separate statements (it splits at top-level ';', which would let a COMMIT end the read-only transaction); "
                                + "send exactly one statement, with nothing but whitespace after a final ';'");
            }
            if (cached.query.createParameterList().getParameterCount() > 0) {
                throw new StatementRefusedException(
                        Violation.PARAMETER,
                        "'?' outside quotes is a bind-parameter placeholder for the JDBC "
                                + "driver; write ?? for the jsonb operators ? ?| ?& (or use jsonb_exists / jsonb_exists_any / jsonb_exists_all)");
            }
            return cached.query.getNativeSql();
        } finally {
            executor.releaseQuery(cached);
        }
    }

    boolean isBroken() {
        try {
            return connection.isClosed() || !connection.isValid(2);
        } catch (SQLException e) {
            return true;
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // the sandbox may already be gone
        }
    }
}
