package io.roboco.sandbox.engine.postgres;

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
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
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
     * each table) into the sandbox database as the agent. With data, constraints and indexes come after the rows and
     * foreign keys are added {@code NOT VALID} (capped rows may point past the cap); without, the schema is restored
     * whole. Failures name the source as {@code sourceLabel} (e.g. the setting that holds the URL): a message reaches the
     * agent, so it names no source host, port, user, database or password, and no address the tools printed.
     *
     * @param sourceUrl {@code postgresql://user:password@host:port/db}; it must be reachable from the sandbox container
     */
    @Override
    public void cloneFrom(
            ContainerExec exec, ProbeTarget target, String sourceUrl, Integer maxRowsPerTable, String sourceLabel)
            throws SeedException {
        Source source = Source.parse(sourceUrl);
        Credentials c = target.credentials();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PGPASSWORD", source.password());
        env.put("SRC", source.withoutPassword());
        env.put("DST_USER", c.user());
        env.put("DST_DB", c.database());
        env.put("DST_PORT", Integer.toString(target.endpoint().port()));
        env.put("MAX_ROWS", maxRowsPerTable == null ? "" : Integer.toString(maxRowsPerTable));
        // psql into the sandbox goes over the local socket (trust for local connections in these images and the
        // official ones); PGPASSWORD is the source's and only pg_dump / the source-side psql use it.
        String restore =
                "psql -X -q -v ON_ERROR_STOP=1 -h /var/run/postgresql -p \"$DST_PORT\" -U \"$DST_USER\" -d \"$DST_DB\"";
        String script = maxRowsPerTable == null
                ? "set -o pipefail; pg_dump --no-owner --no-privileges --schema-only -d \"$SRC\" | " + restore
                : "set -o pipefail; pg_dump --no-owner --no-privileges --section=pre-data -d \"$SRC\" | " + restore
                        + " && "
                        + "psql -X -At -d \"$SRC\" -c \"SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c JOIN pg_namespace n"
                        + " ON n.oid = c.relnamespace WHERE c.relkind IN ('r','p') AND n.nspname NOT IN ('pg_catalog','information_schema')"
                        + " AND n.nspname NOT LIKE 'pg\\_%' ORDER BY 1\" | while read -r t; do "
                        + "psql -X -q -v ON_ERROR_STOP=1 -d \"$SRC\" -c \"\\copy (SELECT * FROM $t LIMIT $MAX_ROWS) TO STDOUT\" | "
                        + restore + " -c \"\\copy $t FROM STDIN\" || exit 1; done && "
                        + "pg_dump --no-owner --no-privileges --section=post-data -d \"$SRC\" | "
                        + "sed -E 's/^(    ADD CONSTRAINT .* FOREIGN KEY .*);$/\\1 NOT VALID;/' | " + restore;
        ExecResult result;
        try {
            result = exec.exec(List.of("bash", "-c", script), env);
        } catch (Exception e) {
            throw new SeedException("clone could not run inside the sandbox container: "
                    + source.redact(String.valueOf(e.getMessage())));
        }
        if (!result.ok()) {
            throw new SeedException("clone from " + sourceLabel + " failed (exit " + result.exitCode() + "): "
                    + source.redact(firstLines(result.output(), 3))
                    + "; the operator checks that the source answers from the sandbox"
                    + " and that the URL in " + sourceLabel + " is right");
        }
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
