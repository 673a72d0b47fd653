package io.roboco.sandbox.guard;

import java.util.List;
import java.util.Set;

/**
 * Every verb's name, written once: the role manifest, the guard chain, the verb contract ({@code verbs.VerbNames}),
 * the data operations and the MCP tools all take them from here.
 */
public final class Verbs {
    public static final String GIVE_ME_WORK = "give_me_work";
    public static final String REQUEST_SANDBOX = "request_sandbox";
    public static final String RELEASE_SANDBOX = "release_sandbox";
    public static final String I_AM_DONE = "i_am_done";
    public static final String UNCLAIM = "unclaim";
    public static final String I_AM_IDLE = "i_am_idle";
    public static final String PASS_REVIEW = "pass_review";
    public static final String FAIL_REVIEW = "fail_review";
    public static final String I_DOCUMENTED = "i_documented";
    public static final String SNAPSHOT_SCHEMA = "snapshot_schema";
    public static final String DIFF_SCHEMA = "diff_schema";
    public static final String CHECKPOINT_SANDBOX = "checkpoint_sandbox";
    public static final String REWIND_SANDBOX = "rewind_sandbox";
    public static final String DIFF_DATA = "diff_data";
    public static final String SAVE_TEMPLATE = "save_template";

    /** Data operations on an agent's sandbox: each takes a name (diff_data: a checkpoint's). */
    public static final List<String> DATA =
            List.of(SNAPSHOT_SCHEMA, DIFF_SCHEMA, CHECKPOINT_SANDBOX, REWIND_SANDBOX, DIFF_DATA);

    /** Verbs that end an engagement: on success they clear the active task and release the sandbox best-effort. */
    public static final List<String> LIFECYCLE_EXITS =
            List.of(I_AM_DONE, UNCLAIM, I_AM_IDLE, PASS_REVIEW, FAIL_REVIEW, I_DOCUMENTED);

    public static final Set<String> ALL = Set.of(
            GIVE_ME_WORK,
            REQUEST_SANDBOX,
            RELEASE_SANDBOX,
            I_AM_DONE,
            UNCLAIM,
            I_AM_IDLE,
            PASS_REVIEW,
            FAIL_REVIEW,
            I_DOCUMENTED,
            SNAPSHOT_SCHEMA,
            DIFF_SCHEMA,
            CHECKPOINT_SANDBOX,
            REWIND_SANDBOX,
            DIFF_DATA,
            SAVE_TEMPLATE);

    private Verbs() {}
}
