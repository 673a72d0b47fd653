package io.roboco.sandbox.engine;

/** Outcome of a command run inside a container. */
public record ExecResult(int exitCode, String stdout, String stderr) {
    public boolean ok() {
        return exitCode == 0;
    }

    /** stdout and stderr together, trimmed; for error messages. */
    public String output() {
        return (stdout + "\n" + stderr).strip();
    }
}
