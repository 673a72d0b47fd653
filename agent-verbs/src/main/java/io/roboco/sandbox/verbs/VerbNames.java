package io.roboco.sandbox.verbs;

import io.roboco.sandbox.guard.Verbs;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.Names;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** The verbs this contract knows (their names are {@link Verbs}'); anything else is a {@link BadRequest}. */
public final class VerbNames {
    public static final String GIVE_ME_WORK = Verbs.GIVE_ME_WORK;
    public static final String REQUEST_SANDBOX = Verbs.REQUEST_SANDBOX;
    public static final String RELEASE_SANDBOX = Verbs.RELEASE_SANDBOX;
    public static final String I_AM_DONE = Verbs.I_AM_DONE;
    public static final String UNCLAIM = Verbs.UNCLAIM;
    public static final String I_AM_IDLE = Verbs.I_AM_IDLE;
    public static final String PASS_REVIEW = Verbs.PASS_REVIEW;
    public static final String FAIL_REVIEW = Verbs.FAIL_REVIEW;
    public static final String I_DOCUMENTED = Verbs.I_DOCUMENTED;
    /** Data operations on the agent's sandbox (Postgres): each takes {@code {"name": "…"}}. */
    public static final String SNAPSHOT_SCHEMA = Verbs.SNAPSHOT_SCHEMA;

    public static final String DIFF_SCHEMA = Verbs.DIFF_SCHEMA;
    public static final String CHECKPOINT_SANDBOX = Verbs.CHECKPOINT_SANDBOX;
    public static final String REWIND_SANDBOX = Verbs.REWIND_SANDBOX;
    /** What changed in the sandbox's data since a checkpoint: {@code {"checkpoint": "…"}}. */
    public static final String DIFF_DATA = Verbs.DIFF_DATA;

    public static final List<String> DATA = Verbs.DATA;
    /** Saves the agent's sandbox's Postgres database as a named template: {@code {"name": "…", "replace"?: bool}}. */
    public static final String SAVE_TEMPLATE = Verbs.SAVE_TEMPLATE;

    /** Verbs that end an engagement: on success they clear the active task and release the sandbox best-effort. */
    public static final List<String> LIFECYCLE_EXITS = Verbs.LIFECYCLE_EXITS;

    public static final Set<String> ALL = Verbs.ALL;

    private VerbNames() {}

    public static String requireKnown(String verb) {
        if (verb == null || !ALL.contains(verb)) {
            throw new BadRequest(
                    "unknown verb '" + Names.printable(verb) + "'; known: " + String.join(", ", new TreeSet<>(ALL)));
        }
        return verb;
    }
}
