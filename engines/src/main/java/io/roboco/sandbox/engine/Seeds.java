package io.roboco.sandbox.engine;

/**
 * How an engine seeds a new sandbox's database ({@link Engine#seeds}): a script in the engine's own language, or a copy
 * of a source database the operator names. Both run <b>as the agent's credential</b>, after activation, so every seeded
 * object belongs to the agent. A failure names the failing statement or tool and never a secret.
 */
public interface Seeds {
    /** The largest script seed a project may store (256 KiB). */
    int MAX_SCRIPT_BYTES = 256 * 1024;

    /** Runs {@code script} in the agent's database as the agent, statement by statement; returns how many ran. */
    int applyScript(ProbeTarget target, String script) throws SeedException;

    /**
     * Copies a source database's schema (and, when {@code maxRowsPerTable} is not null, at most that many rows of each
     * table, rewritten by {@code mask}'s rules on the way, so a masked column's original value never enters the sandbox)
     * into the agent's database as the agent, from inside the sandbox container. With rows, a cloned column matching one
     * of {@code mask}'s denied patterns without a rule, or a rule naming no column, refuses the seed naming the column,
     * before anything is copied. The source's password never reaches a command line or a message; failures name the
     * source as {@code sourceLabel} (e.g. the setting that holds its URL), never its host, user or database.
     */
    void cloneFrom(
            ContainerExec exec,
            ProbeTarget target,
            String sourceUrl,
            Integer maxRowsPerTable,
            CloneMask mask,
            String sourceLabel)
            throws SeedException;
}
