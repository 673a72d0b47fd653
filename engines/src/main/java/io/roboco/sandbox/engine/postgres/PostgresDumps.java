package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Dumps;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SeedException;
import java.io.InputStream;
import java.io.OutputStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Postgres {@link Dumps}: a template's dump taken from one sandbox database and restored into another, both <b>inside the sandbox
 * container</b> (so the client tools are the server's own major) and both <b>as the agent's role</b> over the local
 * socket: {@code pg_dump --no-owner --no-privileges} (schema and rows, plain SQL) to save, {@code psql} in one
 * transaction to restore, so every restored object belongs to the new agent and a failed restore leaves nothing. Both
 * run as an unprivileged user of the container ({@link ContainerExec#UNPRIVILEGED}), never root: the dump is text an
 * agent's database produced, and the restore's client owns nothing in the container and reads no other process's
 * environment (the admin password's).
 *
 * <p>An extension's {@code COMMENT ON EXTENSION} line is dropped on restore (only the extension's owner, the admin that
 * activated it, may comment on it); {@code CREATE EXTENSION IF NOT EXISTS} passes when the new sandbox has that
 * extension activated (the project's {@code sandbox_extensions}) and fails, naming it, when not.
 */
final class PostgresDumps implements Dumps {
    private static final String LOCAL = "-h /var/run/postgresql -p \"$PORT\" -U \"$AGENT_USER\" -d \"$AGENT_DB\"";

    /** Writes a plain-SQL dump of the agent's database (schema and rows, no owners, no grants) to {@code out}. */
    @Override
    public void dump(ContainerExec exec, ProbeTarget target, OutputStream out) throws SeedException {
        ExecResult result;
        try {
            result = exec.execAs(
                    ContainerExec.UNPRIVILEGED,
                    List.of("bash", "-c", "pg_dump --no-owner --no-privileges --encoding=UTF8 " + LOCAL),
                    env(target),
                    null,
                    out);
        } catch (Exception e) {
            throw new SeedException("pg_dump could not run inside the sandbox container: " + e.getMessage());
        }
        if (!result.ok()) {
            throw new SeedException(
                    "pg_dump failed (exit " + result.exitCode() + "): " + firstLines(result.stderr(), 3));
        }
    }

    /** Restores {@code dump} into the agent's database as the agent, in one transaction (all or nothing). */
    @Override
    public void restore(ContainerExec exec, ProbeTarget target, InputStream dump) throws SeedException {
        String script =
                "set -o pipefail; sed -e '/^COMMENT ON EXTENSION /d' | psql -X -q -v ON_ERROR_STOP=1 --single-transaction "
                        + LOCAL;
        ExecResult result;
        try {
            result = exec.execAs(
                    ContainerExec.UNPRIVILEGED,
                    List.of("bash", "-c", script),
                    env(target),
                    dump,
                    OutputStream.nullOutputStream());
        } catch (Exception e) {
            throw new SeedException(
                    "the template's restore could not run inside the sandbox container: " + e.getMessage());
        }
        if (!result.ok()) {
            String why = firstLines(result.stderr(), 3);
            String hint = why.contains("extension")
                    ? " (an extension the template uses must be in the project's sandbox_extensions)"
                    : "";
            throw new SeedException("the template's restore failed (exit " + result.exitCode() + "): " + why + hint
                    + "; nothing of it was kept");
        }
    }

    /** The major version of the server the target answers on (e.g. 15, 17), read on the agent's credential. */
    @Override
    public int serverMajor(ProbeTarget target) throws SQLException {
        try (Connection agent = PostgresEngine.connect(target, Login.AGENT);
                Statement s = agent.createStatement();
                ResultSet rs = s.executeQuery("SHOW server_version_num")) {
            rs.next();
            return Integer.parseInt(rs.getString(1).strip()) / 10_000;
        }
    }

    private static Map<String, String> env(ProbeTarget target) {
        Credentials c = target.credentials();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("AGENT_USER", c.user());
        env.put("AGENT_DB", c.database());
        env.put("PORT", Integer.toString(target.endpoint().port()));
        return env;
    }

    private static String firstLines(String text, int n) {
        String[] lines = String.valueOf(text).strip().split("\n");
        return String.join(" | ", Arrays.copyOf(lines, Math.min(n, lines.length)));
    }
}
