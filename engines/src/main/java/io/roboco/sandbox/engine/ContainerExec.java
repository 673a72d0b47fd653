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
    default ExecResult exec(List<String> command, Map<String, String> env, InputStream stdin, OutputStream stdout) throws Exception {
        throw new UnsupportedOperationException("this container exec cannot stream a command's input or output");
    }
}
