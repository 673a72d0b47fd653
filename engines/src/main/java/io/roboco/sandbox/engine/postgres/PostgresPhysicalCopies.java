package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.KnownLengthInput;
import io.roboco.sandbox.engine.PhysicalCopies;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SeedException;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Postgres {@link PhysicalCopies}: the data directory of a cleanly stopped server as one {@code tar} stream, written
 * into a new container's (tmpfs) data directory before its server starts.
 *
 * <p><b>Capture</b>, in a {@link #supervised} container (its first process is a shell that started the image's
 * entrypoint as a child): {@code pg_ctl stop -m fast} (a shutdown checkpoint: the directory is consistent and needs no
 * recovery), the WAL segments the shutdown checkpoint does not need deleted ({@code pg_controldata}'s REDO file is the
 * one kept), then {@code tar -c} of the directory to the caller's stream, as the {@code postgres} user.
 *
 * <p><b>Restore</b>, in a {@link #held} container (its first process prepares the data directory, then waits for a
 * marker before it runs the entrypoint, which finds a data directory and starts the server on it): as {@code postgres},
 * the image's server major checked against the copy's, {@code tar -x} of the stream, then one single-user session
 * ({@code postgres --single}: no port, no other session) that gives the admin, the copy's login role and database the
 * new sandbox's names and SCRAM verifiers (computed here; no plaintext password is passed), then the marker. Every
 * credential of the new sandbox is its own; the copy's never log in again.
 */
final class PostgresPhysicalCopies implements PhysicalCopies {
    /** Written by the held container's first process once the data directory is ready for the copy. */
    static final String AWAITING = "/tmp/.roboco-copy-awaited";
    /** Written by the restore once the copy is in: the held container then starts its server. */
    static final String COPIED = "/tmp/.roboco-copy-in";
    /** Written by the capture before it stops the server: the supervising shell then stays when the server ends. */
    static final String STOPPING = "/tmp/.roboco-copy-stopping";

    private static final String SUPERVISOR =
            "docker-entrypoint.sh \"$@\"\n" + "[ -e " + STOPPING + " ] || exit 1\n" + "while :; do sleep 3600; done\n";

    private static final String HOLDER =
            "mkdir -p \"$PGDATA\" && chown postgres:postgres \"$PGDATA\" && chmod 0700 \"$PGDATA\""
                    + " || exit 1\n"
                    + "if [ -n \"${ROBOCO_COPY_FROM:-}\" ]; then\n"
                    + "  cp -a \"$ROBOCO_COPY_FROM\"/. \"$PGDATA\"/"
                    + " || { echo \"the template's copy could not be copied from $ROBOCO_COPY_FROM\" >&2; exit 1; }\n"
                    + "fi\n"
                    + "touch " + AWAITING + "\n"
                    + "until [ -e " + COPIED + " ]; do sleep 0.01; done\n"
                    + "exec docker-entrypoint.sh \"$@\"\n";

    private static final String STOP = "set -eu\n"
            + "touch " + STOPPING + "\n"
            + "pg_ctl -D \"$PGDATA\" -m fast -w -t 120 stop >/dev/null\n"
            + "redo=$(pg_controldata \"$PGDATA\" | sed -n \"s/^Latest checkpoint's REDO WAL file: *//p\")\n"
            + "if [ -n \"$redo\" ]; then\n"
            + "  find \"$PGDATA/pg_wal\" -maxdepth 1 -type f -name '????????????????????????' ! -name \"$redo\" -delete\n"
            + "fi\n"
            + "rm -f \"$PGDATA/postmaster.opts\"\n"
            + "cat \"$PGDATA/PG_VERSION\"\n";

    private static final String ARCHIVE = "tar -c -f - -C \"$PGDATA\" .";

    private static final String RESTORE = "set -eu\n"
            + "i=0\n"
            + "until [ -e " + AWAITING + " ]; do\n"
            + "  i=$((i+1)); if [ $i -gt 3000 ]; then echo 'the data directory was never made ready' >&2; exit 4; fi\n"
            + "  sleep 0.01\n"
            + "done\n"
            + "v=$(postgres -V | sed -E 's/^[^0-9]*([0-9]+).*/\\1/')\n"
            + "if [ \"$v\" != \"$ROBOCO_COPY_MAJOR\" ]; then\n"
            + "  echo \"the copy was written by PostgreSQL $ROBOCO_COPY_MAJOR and this image's server is PostgreSQL $v\" >&2\n"
            + "  exit 3\n"
            + "fi\n"
            + "[ -n \"${ROBOCO_COPY_IN_PLACE:-}\" ] || tar -x -f - -C \"$PGDATA\"\n"
            + "if ! out=$(printf '%s\\n' \"$ROBOCO_COPY_SQL\" | postgres --single -D \"$PGDATA\" -c fsync=off"
            + " -c log_min_messages=warning -c log_min_error_statement=panic postgres 2>&1 >/dev/null); then\n"
            + "  echo \"$out\" >&2; exit 5\n"
            + "fi\n"
            + "case \"$out\" in *ERROR*|*FATAL*) echo \"$out\" >&2; exit 5 ;; esac\n"
            + "touch " + COPIED + "\n";

    /** The user the server's files belong to in every image of the official contract. */
    static final String SERVER_USER = "postgres";

    @Override
    public ContainerSpec supervised(ContainerSpec spec) {
        return wrapped(spec, SUPERVISOR, "roboco-supervised");
    }

    @Override
    public ContainerSpec held(ContainerSpec spec) {
        return wrapped(spec, HOLDER, "roboco-held");
    }

    @Override
    public ContainerSpec heldFrom(ContainerSpec spec, String copyDir) {
        ContainerSpec held = held(spec);
        Map<String, String> env = new LinkedHashMap<>(held.env());
        env.put("ROBOCO_COPY_FROM", copyDir);
        return new ContainerSpec(held.image(), env, held.command(), held.dataDir(), held.port());
    }

    private static ContainerSpec wrapped(ContainerSpec spec, String script, String name) {
        List<String> command = new ArrayList<>(List.of("bash", "-c", script, name));
        command.addAll(spec.command());
        return new ContainerSpec(spec.image(), spec.env(), command, spec.dataDir(), spec.port());
    }

    @Override
    public Origin capture(ContainerExec exec, ProbeTarget source, OutputStream out) throws SeedException {
        ByteArrayOutputStream version = new ByteArrayOutputStream();
        ExecResult stopped = run(exec, STOP, Map.of("LC_ALL", "C"), null, version, "stopping the server");
        if (!stopped.ok()) {
            throw new SeedException("the server could not be stopped for a physical copy (exit " + stopped.exitCode()
                    + "): " + firstLines(stopped.stderr(), 3));
        }
        String major = version.toString(StandardCharsets.UTF_8).strip();
        if (!major.matches("[0-9]{1,3}")) {
            throw new SeedException(
                    "the stopped data directory names no PostgreSQL major (PG_VERSION '" + firstLines(major, 1) + "')");
        }
        ExecResult archived = run(exec, ARCHIVE, Map.of(), null, out, "archiving the data directory");
        if (!archived.ok()) {
            throw new SeedException("the data directory could not be archived (exit " + archived.exitCode() + "): "
                    + firstLines(archived.stderr(), 3));
        }
        Credentials c = source.credentials();
        return new Origin(major, c.adminUser(), c.user(), c.database());
    }

    @Override
    public void restore(ContainerExec exec, Origin origin, Credentials target, InputStream archive, long length)
            throws SeedException {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ROBOCO_COPY_MAJOR", origin.major());
        env.put("ROBOCO_COPY_SQL", renames(origin, target));
        if (archive == null) {
            env.put("ROBOCO_COPY_IN_PLACE", "1");
        }
        ExecResult result = run(
                exec,
                RESTORE,
                env,
                archive == null ? null : new KnownLengthInput(archive, length),
                OutputStream.nullOutputStream(),
                "writing the copy in");
        if (!result.ok()) {
            String why = firstLines(result.stderr(), 3);
            throw new SeedException(
                    switch (result.exitCode()) {
                        case 3 -> why + " (a physical copy starts only on the major that wrote it)";
                        case 5 -> "the copy's roles and database could not be renamed: " + why;
                        default ->
                            "the copy could not be written into the new sandbox (exit " + result.exitCode() + "): "
                                    + why;
                    });
        }
    }

    /**
     * One statement a line (single-user mode ends a statement at a newline): the admin's name (the bootstrap superuser,
     * renamed in the catalog as the image's entrypoint does, since a session cannot rename its own role) and password, the
     * origin's role and database renamed, the role's password. Verifiers only: the plaintext never leaves this JVM.
     */
    static String renames(Origin origin, Credentials target) {
        List<String> sql = new ArrayList<>();
        if (!origin.adminUser().equals(target.adminUser())) {
            sql.add("UPDATE pg_authid SET rolname = " + PostgresEngine.literal(target.adminUser())
                    + " WHERE oid = 10;");
        }
        sql.add("ALTER ROLE " + PostgresEngine.identifier(target.adminUser()) + " PASSWORD "
                + PostgresEngine.literal(ScramVerifier.of(target.adminPassword())) + ";");
        if (!origin.user().equals(target.user())) {
            sql.add("ALTER ROLE " + PostgresEngine.identifier(origin.user()) + " RENAME TO "
                    + PostgresEngine.identifier(target.user()) + ";");
        }
        sql.add("ALTER ROLE " + PostgresEngine.identifier(target.user()) + " PASSWORD "
                + PostgresEngine.literal(ScramVerifier.of(target.password())) + ";");
        if (!origin.database().equals(target.database())) {
            sql.add("ALTER DATABASE " + PostgresEngine.identifier(origin.database()) + " RENAME TO "
                    + PostgresEngine.identifier(target.database()) + ";");
        }
        return String.join("\n", sql);
    }

    private static ExecResult run(
            ContainerExec exec,
            String script,
            Map<String, String> env,
            InputStream stdin,
            OutputStream stdout,
            String what)
            throws SeedException {
        try {
            return exec.execAs(SERVER_USER, List.of("bash", "-c", script), env, stdin, stdout);
        } catch (Exception e) {
            throw new SeedException(what + " could not run inside the container: " + e.getMessage());
        }
    }

    private static String firstLines(String text, int n) {
        String[] lines = String.valueOf(text).strip().split("\n");
        return String.join(" | ", Arrays.copyOf(lines, Math.min(n, lines.length)));
    }
}
