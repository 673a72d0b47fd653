package io.roboco.sandbox.verbs;

import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.Names;
import java.util.List;
import java.util.Set;

/** The verbs this contract knows. Anything else is a {@link BadRequest}. */
public final class VerbNames {
    public static final String GIVE_ME_WORK = "give_me_work";
    public static final String REQUEST_SANDBOX = "request_sandbox";
    public static final String RELEASE_SANDBOX = "release_sandbox";
    public static final String I_AM_DONE = "i_am_done";
    public static final String UNCLAIM = "unclaim";
    public static final String I_AM_IDLE = "i_am_idle";
    public static final String PASS_REVIEW = "pass_review";
    public static final String FAIL_REVIEW = "fail_review";
    public static final String I_DOCUMENTED = "i_documented";
    /** Data operations on the agent's sandbox (Postgres): each takes {@code {"name": "…"}}. */
    public static final String SNAPSHOT_SCHEMA = io.roboco.sandbox.data.SandboxData.SNAPSHOT_SCHEMA;
    public static final String DIFF_SCHEMA = io.roboco.sandbox.data.SandboxData.DIFF_SCHEMA;
    public static final String CHECKPOINT_SANDBOX = io.roboco.sandbox.data.SandboxData.CHECKPOINT;
    public static final String REWIND_SANDBOX = io.roboco.sandbox.data.SandboxData.REWIND;
    public static final List<String> DATA = List.of(SNAPSHOT_SCHEMA, DIFF_SCHEMA, CHECKPOINT_SANDBOX, REWIND_SANDBOX);
    /** Saves the agent's sandbox's Postgres database as a named template: {@code {"name": "…", "replace"?: bool}}. */
    public static final String SAVE_TEMPLATE = io.roboco.sandbox.data.TemplateSaving.SAVE_TEMPLATE;

    /** Verbs that end an engagement: on success they clear the active task and release the sandbox best-effort. */
    public static final List<String> LIFECYCLE_EXITS = List.of(I_AM_DONE, UNCLAIM, I_AM_IDLE, PASS_REVIEW, FAIL_REVIEW, I_DOCUMENTED);

    public static final Set<String> ALL = Set.of(GIVE_ME_WORK, REQUEST_SANDBOX, RELEASE_SANDBOX, I_AM_DONE, UNCLAIM,
            I_AM_IDLE, PASS_REVIEW, FAIL_REVIEW, I_DOCUMENTED, SNAPSHOT_SCHEMA, DIFF_SCHEMA, CHECKPOINT_SANDBOX, REWIND_SANDBOX,
            SAVE_TEMPLATE);

    private VerbNames() {
    }

    public static String requireKnown(String verb) {
        if (verb == null || !ALL.contains(verb)) {
            throw new BadRequest("unknown verb '" + Names.printable(verb) + "'; known: " + String.join(", ", new java.util.TreeSet<>(ALL)));
        }
        return verb;
    }
}
