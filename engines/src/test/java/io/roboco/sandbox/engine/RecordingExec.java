package io.roboco.sandbox.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/** A fake {@link ContainerExec}: answers queued results and records every call. */
public final class RecordingExec implements ContainerExec {
    public record Call(List<String> command, Map<String, String> env) {}

    public final List<Call> calls = new ArrayList<>();
    private final Deque<ExecResult> answers = new ArrayDeque<>();

    public RecordingExec answer(int exitCode, String stdout, String stderr) {
        answers.add(new ExecResult(exitCode, stdout, stderr));
        return this;
    }

    @Override
    public ExecResult exec(List<String> command, Map<String, String> env) {
        calls.add(new Call(command, env));
        if (answers.isEmpty()) {
            throw new AssertionError("unexpected exec " + command);
        }
        return answers.poll();
    }
}
