package io.roboco.sandbox.engine;

import java.io.InputStream;
import java.io.OutputStream;

/**
 * A sandbox's database written out and read back in: what a template is ({@link Engine#dumps}). Both run inside the
 * sandbox container, so the client tools are the server's own version, and on the agent's credential, so a restore
 * makes objects the new agent owns. A restore is all or nothing.
 */
public interface Dumps {
    /** Writes the agent's database (schema and data, no owners or grants) to {@code out}. */
    void dump(ContainerExec exec, ProbeTarget target, OutputStream out) throws SeedException;

    /** Restores {@code dump} into the agent's database as the agent; a failed restore leaves nothing of it. */
    void restore(ContainerExec exec, ProbeTarget target, InputStream dump) throws SeedException;

    /** The major version the target's server runs (e.g. 15): a dump restores into its own major or a newer one only. */
    int serverMajor(ProbeTarget target) throws Exception;
}
