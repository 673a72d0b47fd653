package io.roboco.sandbox.plugin;

/**
 * Whether the host orchestrator can serve verbs right now. While it is starting, stopping or
 * restarting, {@code request_sandbox} is refused as retryable.
 */
@FunctionalInterface
public interface OrchestratorHandle {
    State state();

    enum State {
        STARTING,
        RUNNING,
        STOPPING,
        RESTARTING
    }

    static OrchestratorHandle running() {
        return () -> State.RUNNING;
    }
}
