package io.roboco.sandbox.engine;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;

/** Runs a command inside one sandbox container: the only way features are activated, seeds restored and dumps taken. */
@FunctionalInterface
public interface ContainerExec {
    ExecResult exec(List<String> command, Map<String, String> env) throws Exception;

    default ExecResult exec(List<String> command) throws Exception {
        return exec(command, Map.of());
    }

    /**
     * With streams, for what is too large for a string: {@code stdin} (null: none) is fed to the command to its end;
     * the command's stdout goes to {@code stdout} (the result's stdout is then empty). An exec that cannot stream
     * throws {@link UnsupportedOperationException}.
     */
    default ExecResult exec(List<String> command, Map<String, String> env, InputStream stdin, OutputStream stdout)
            throws Exception {
        throw new UnsupportedOperationException("this container exec cannot stream a command's input or output");
    }

    /**
     * {@link #exec(List, Map, InputStream, OutputStream)} as {@code user} inside the container (e.g. {@value #UNPRIVILEGED}),
     * for work on content an agent wrote (a template's dump and restore, a clone) that must not run as root there. An
     * exec that cannot choose its user throws {@link UnsupportedOperationException} rather than run it as root.
     */
    default ExecResult execAs(
            String user, List<String> command, Map<String, String> env, InputStream stdin, OutputStream stdout)
            throws Exception {
        throw new UnsupportedOperationException("this container exec cannot run a command as another user");
    }

    /** {@code nobody:nogroup} by number, so it needs no entry in the image's passwd: owns nothing, reads no other process's environment. */
    String UNPRIVILEGED = "65534:65534";
}
