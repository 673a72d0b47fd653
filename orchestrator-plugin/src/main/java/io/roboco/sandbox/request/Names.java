package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.Printable;

/**
 * Echoing the names callers send. Their shapes are the value types' ({@link AgentSlug}, {@link Owner},
 * {@link ProjectId}, {@link ServiceName}, {@link Role}, {@link SandboxName}, {@link TemplateName},
 * {@link SnapshotName}, {@link io.roboco.sandbox.engine.CheckpointName}).
 */
public final class Names {
    private Names() {}

    /** Echoes caller input safely; see {@link Printable}. */
    public static String printable(String s) {
        return Printable.of(s);
    }
}
