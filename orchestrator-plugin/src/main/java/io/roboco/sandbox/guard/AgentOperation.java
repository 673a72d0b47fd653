package io.roboco.sandbox.guard;

/**
 * Everything an agent can ask for, by any road (the HTTP verbs, the MCP tools), and which steps of the guard chain it
 * passes. The role step asks whether the agent's role carries {@link #verb()}; an {@link Reach#ENGAGED} operation also
 * needs the flag on, an active project-bound task and a project that opted in. Only what gives nothing new is
 * {@link Reach#CLEANUP}: releasing one's own sandbox and listing one's own sandboxes (no credentials), so an agent whose
 * task ended can still see and remove what it left.
 */
public enum AgentOperation {
    /** request_sandbox: the agent's verb set (the sandbox named {@code default}). */
    REQUEST(Verbs.REQUEST_SANDBOX, Reach.ENGAGED),
    /** request_sandbox with a name: a named sandbox of the agent's. */
    CREATE_NAMED(Verbs.REQUEST_SANDBOX, Reach.ENGAGED),
    /** A longer life for one of the agent's sandboxes. */
    EXTEND(Verbs.REQUEST_SANDBOX, Reach.ENGAGED),
    /** The read-only inspection tools on one of the agent's sandboxes. */
    INSPECT(Verbs.REQUEST_SANDBOX, Reach.ENGAGED),
    /** The templates of the agent's project. */
    LIST_TEMPLATES(Verbs.REQUEST_SANDBOX, Reach.ENGAGED),
    SNAPSHOT_SCHEMA(Verbs.SNAPSHOT_SCHEMA, Reach.ENGAGED),
    DIFF_SCHEMA(Verbs.DIFF_SCHEMA, Reach.ENGAGED),
    CHECKPOINT(Verbs.CHECKPOINT_SANDBOX, Reach.ENGAGED),
    REWIND(Verbs.REWIND_SANDBOX, Reach.ENGAGED),
    /** diff_data: read-only, what changed in the sandbox's data since a checkpoint. */
    DIFF_DATA(Verbs.DIFF_DATA, Reach.ENGAGED),
    SAVE_TEMPLATE(Verbs.SAVE_TEMPLATE, Reach.ENGAGED),
    /** release_sandbox (the verb set, or a named sandbox of the agent's). */
    RELEASE(Verbs.RELEASE_SANDBOX, Reach.CLEANUP),
    /** The agent's own sandboxes, without credentials. */
    LIST_SANDBOXES(Verbs.RELEASE_SANDBOX, Reach.CLEANUP);

    /** Which steps after the role's apply. */
    public enum Reach {
        /** Flag, active task, project opted in: the operation reaches a database or the server's resources. */
        ENGAGED,
        /** Nothing after the role: the operation only lets the agent see or remove what is its own. */
        CLEANUP
    }

    private final String verb;
    private final Reach reach;

    AgentOperation(String verb, Reach reach) {
        this.verb = verb;
        this.reach = reach;
    }

    /** The verb the agent's role must carry. */
    public String verb() {
        return verb;
    }

    public Reach reach() {
        return reach;
    }

    /** The operation of a data verb ({@link Verbs#DATA} or save_template). */
    public static AgentOperation ofDataVerb(String verb) {
        return switch (verb) {
            case Verbs.SNAPSHOT_SCHEMA -> SNAPSHOT_SCHEMA;
            case Verbs.DIFF_SCHEMA -> DIFF_SCHEMA;
            case Verbs.CHECKPOINT_SANDBOX -> CHECKPOINT;
            case Verbs.REWIND_SANDBOX -> REWIND;
            case Verbs.DIFF_DATA -> DIFF_DATA;
            case Verbs.SAVE_TEMPLATE -> SAVE_TEMPLATE;
            default -> throw new IllegalArgumentException("not a data verb: " + verb);
        };
    }
}
