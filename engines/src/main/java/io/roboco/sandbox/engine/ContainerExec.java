package io.roboco.sandbox.engine;

import java.util.List;
import java.util.Map;

/** Runs a command inside one sandbox container: the only way features are activated. */
@FunctionalInterface
public interface ContainerExec {
    ExecResult exec(List<String> command, Map<String, String> env) throws Exception;

    default ExecResult exec(List<String> command) throws Exception {
        return exec(command, Map.of());
    }
}
