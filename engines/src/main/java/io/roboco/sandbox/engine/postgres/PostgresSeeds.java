package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.CloneMask;
import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SeedException;
import io.roboco.sandbox.engine.Seeds;
import io.roboco.sandbox.sql.SqlSyntaxException;
import io.roboco.sandbox.sql.SqlToken;
import io.roboco.sandbox.sql.SqlTokenizer;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Postgres {@link Seeds}: a project's seed applied to a new sandbox database after activation, <b>as the agent's
 * role</b>, so every object it makes belongs to the agent.
 *
 * <ul>
 *   <li>{@link #applyScript}: the script split into statements by the SQL tokenizer (quotes, dollar quotes and comments
 *   read as Postgres reads them), each run in turn on an agent connection; a failure names the statement.</li>
 *   <li>{@link #cloneFrom}: {@code pg_dump --no-owner --no-privileges} of a source database streamed into {@code psql}
 *   as the agent, both run <b>inside the sandbox container</b>, so the client tools are the sandbox's own major
 *   (a dump made by a newer pg_dump does not restore on an older server; the sandbox's pg_dump refuses a newer source
 *   with a clear message). The source password travels in the exec's environment ({@code PGPASSWORD}), never in a
 *   command line, and is removed from any message.</li>
 * </ul>
 */
final class PostgresSeeds implements Seeds {
    private static final int SHOWN = 120;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Runs the SQL {@code script} as the agent, statement by statement. */
    @Override
    public int applyScript(ProbeTarget target, String script) throws SeedException {
        List<String> statements;
        try {
            statements = statements(script);
        } catch (SqlSyntaxException e) {
            throw new SeedException("seed SQL cannot be read: " + e.getMessage());
        }
        try (Connection agent = PostgresEngine.connect(target, Login.AGENT);
                Statement s = agent.createStatement()) {
            s.setQueryTimeout(60);
            for (int i = 0; i < statements.size(); i++) {
                try {
                    s.execute(statements.get(i));
                } catch (SQLException e) {
                    throw new SeedException("seed SQL statement " + (i + 1) + " of " + statements.size() + " failed: "
                            + shorten(statements.get(i)) + " -> " + firstLine(e.getMessage()));
                }
            }
        } catch (SQLException e) {
            throw new SeedException("seed SQL could not connect as the agent: " + firstLine(e.getMessage()));
        }
        return statements.size();
    }

    /** The top-level statements of {@code script} (split at {@code ;} outside quotes and comments), blank ones dropped. */
    static List<String> statements(String script) throws SqlSyntaxException {
        List<String> out = new ArrayList<>();
        int from = 0;
        for (SqlToken token : SqlTokenizer.tokenize(script)) {
            if (token.is(";")) {
                add(out, script.substring(from, token.start()));
                from = token.end();
            }
        }
        add(out, script.substring(from));
        return out;
    }

    private static void add(List<String> out, String statement) throws SqlSyntaxException {
        if (!SqlTokenizer.tokenize(statement).isEmpty()) {
            out.add(statement.strip());
        }
    }

    /**
     * Copies the source database's schema (and, when {@code maxRowsPerTable} is not null, at most that many rows of
     * each table, through {@code mask}) into the sandbox database as the agent. With data, the source's tables and
     * columns are read first and the copy planned ({@link PostgresClonePlan}): a denied-pattern column without a rule,
     * or a rule naming no column, refuses the seed before anything is copied; each table's rows are then read on the
     * source by a query that applies the rules (an original value of a masked column never enters the sandbox), with
     * constraints and indexes after the rows and foreign keys {@code NOT VALID} (capped rows may point past the cap);
     * without, the schema is restored whole. Failures name the source as {@code sourceLabel}: a message reaches the
     * agent, so it names no source host, port, user, database or password, and no address the tools printed.
     *
     * @param sourceUrl {@code postgresql://user:password@host:port/db}; it must be reachable from the sandbox container
     */
    @Override
    public void cloneFrom(
            ContainerExec exec,
            ProbeTarget target,
            String sourceUrl,
            Integer maxRowsPerTable,
            CloneMask mask,
            String sourceLabel)
            throws SeedException {
        Source source = Source.parse(sourceUrl);
        Credentials c = target.credentials();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PGPASSWORD", source.password());
        env.put("SRC", source.withoutPassword());
        env.put("DST_USER", c.user());
        env.put("DST_DB", c.database());
        env.put("DST_PORT", Integer.toString(target.endpoint().port()));
        // psql into the sandbox goes over the local socket (trust for local connections in these images and the
        // official ones); PGPASSWORD is the source's and only pg_dump / the source-side psql use it.
        String restore =
                "psql -X -q -v ON_ERROR_STOP=1 -h /var/run/postgresql -p \"$DST_PORT\" -U \"$DST_USER\" -d \"$DST_DB\"";
        String script;
        if (maxRowsPerTable == null) {
            if (!mask.rules().isEmpty()) {
                throw new SeedException("clone refused: mask rules rewrite cloned rows, and this clone copies no rows"
                        + " (data: false)");
            }
            script = "set -o pipefail; pg_dump --no-owner --no-privileges --schema-only -d \"$SRC\" | " + restore;
        } else {
            List<PostgresClonePlan.TableCopy> copies = PostgresClonePlan.plan(
                    PostgresClonePlan.columns(run(exec, source, env, sourceLabel, COLUMNS)),
                    mask,
                    maxRowsPerTable,
                    salt());
            env.put("N", Integer.toString(copies.size()));
            for (int i = 0; i < copies.size(); i++) {
                env.put("Q_" + (i + 1), copies.get(i).sourceQuery());
                env.put("T_" + (i + 1), copies.get(i).target());
            }
            script = "set -o pipefail; pg_dump --no-owner --no-privileges --section=pre-data -d \"$SRC\" | " + restore
                    + " && i=1 && while [ \"$i\" -le \"$N\" ]; do q=\"Q_$i\"; t=\"T_$i\"; "
                    // the query on stdin, not in psql's arguments: its salt stays out of the process list
                    + "printf '%s;\n' \"COPY (${!q}) TO STDOUT\" | psql -X -q -v ON_ERROR_STOP=1 -d \"$SRC\" | "
                    + restore + " -c \"\\copy ${!t} FROM STDIN\" || exit 1; i=$((i + 1)); done && "
                    + "pg_dump --no-owner --no-privileges --section=post-data -d \"$SRC\" | "
                    + "sed -E 's/^(    ADD CONSTRAINT .* FOREIGN KEY .*);$/\\1 NOT VALID;/' | " + restore;
        }
        run(exec, source, env, sourceLabel, script);
    }

    /** The source's tables and columns, one NUL after every field ({@link PostgresClonePlan#columns}). */
    private static final String COLUMNS = "psql -X -A -t -z -0 -v ON_ERROR_STOP=1 -d \"$SRC\" -c \"$COLUMNS_QUERY\"";

    /** Runs {@code script} in the sandbox container with {@code env}; its stdout, or a failure naming the source by label. */
    private static String run(
            ContainerExec exec, Source source, Map<String, String> env, String sourceLabel, String script)
            throws SeedException {
        Map<String, String> all = new LinkedHashMap<>(env);
        all.put("COLUMNS_QUERY", PostgresClonePlan.COLUMNS_QUERY);
        ExecResult result;
        try {
            result = exec.exec(List.of("bash", "-c", script), all);
        } catch (Exception e) {
            throw new SeedException("clone could not run inside the sandbox container: "
                    + source.redact(String.valueOf(e.getMessage())));
        }
        if (!result.ok()) {
            throw new SeedException("clone from " + sourceLabel + " failed (exit " + result.exitCode() + "): "
                    + source.redact(firstLines(result.stderr().isBlank() ? result.output() : result.stderr(), 3))
                    + "; the operator checks that the source answers from the sandbox"
                    + " and that the URL in " + sourceLabel + " is right");
        }
        return result.stdout();
    }

    /** A random salt for one clone's digests: never stored, so a digest cannot be recomputed from a guessed value. */
    private static String salt() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** A source database URL split so the password never reaches a command line or a message. */
    record Source(String user, String password, String host, int port, String database, String query) {
        static Source parse(String url) throws SeedException {
            try {
                URI u = new URI(url);
                if (!"postgresql".equals(u.getScheme()) && !"postgres".equals(u.getScheme())) {
                    throw new SeedException("clone source must be a postgresql:// URL");
                }
                String userInfo = u.getRawUserInfo() == null ? "" : u.getRawUserInfo();
                int colon = userInfo.indexOf(':');
                String user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
                String password = colon < 0 ? "" : decode(userInfo.substring(colon + 1));
                String path = u.getRawPath() == null ? "" : u.getRawPath();
                if (u.getHost() == null || path.length() <= 1) {
                    throw new SeedException("clone source URL must name a host and a database");
                }
                return new Source(
                        user,
                        password,
                        u.getHost(),
                        u.getPort() < 0 ? 5432 : u.getPort(),
                        decode(path.substring(1)),
                        u.getRawQuery());
            } catch (URISyntaxException e) {
                throw new SeedException("clone source is not a valid URL");
            }
        }

        String withoutPassword() {
            String who = user.isEmpty() ? "" : URLEncoderLite.encode(user) + "@";
            return "postgresql://" + who + host + ":" + port + "/" + URLEncoderLite.encode(database)
                    + (query == null ? "" : "?" + query);
        }

        /** {@code text} without the source's password, host, user and database, nor any IPv4 address (one the host resolved to). */
        String redact(String text) {
            String out = text;
            String[][] secrets = {
                {password, "<redacted>"},
                {host, "<source host>"},
                {user, "<source user>"},
                {database, "<source database>"}
            };
            for (String[] s : secrets) {
                if (s[0] != null && !s[0].isEmpty()) {
                    out = out.replace(s[0], s[1]);
                }
            }
            return out.replaceAll("\\b\\d{1,3}(\\.\\d{1,3}){3}\\b", "<address>")
                    .replaceAll("\\([0-9a-fA-F:]*:[0-9a-fA-F:]+\\)", "(<address>)")
                    .replaceAll("port \\d+", "port <port>");
        }

        private static String decode(String s) {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        }
    }

    /** Percent-encodes a URL component (user, database name). */
    static final class URLEncoderLite {
        static String encode(String s) {
            return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
        }
    }

    private static String shorten(String statement) {
        String flat = statement.replaceAll("\\s+", " ");
        return flat.length() <= SHOWN ? flat : flat.substring(0, SHOWN) + "…";
    }

    private static String firstLine(String message) {
        String m = String.valueOf(message).strip();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    private static String firstLines(String text, int n) {
        String[] lines = text.strip().split("\n");
        return String.join(" | ", Arrays.copyOf(lines, Math.min(n, lines.length)));
    }
}
