package io.roboco.sandbox.provision;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * {@code psql} with a handed-out {@code ROBOCO_TEST_DB_URL}: the independent client tests use to do an agent's own work
 * ({@code -v ON_ERROR_STOP=1 -At -c sql}, output and errors together, at most 60 s).
 */
public final class Psql {
    /** What psql exited with and printed (stripped). */
    public record Result(int exit, String out) {}

    private Psql() {}

    /** Runs {@code sql}; the exit code and the output, whatever they are. */
    public static Result attempt(String url, String sql) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("psql", url, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql)
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("psql did not finish in 60 s: " + out);
        }
        return new Result(p.exitValue(), out);
    }

    /** Runs {@code sql}, which must succeed; its output. */
    public static String run(String url, String sql) throws IOException, InterruptedException {
        Result r = attempt(url, sql);
        if (r.exit() != 0) {
            throw new AssertionError("psql with the handed-out URL exited " + r.exit() + ": " + r.out());
        }
        return r.out();
    }
}
