package io.roboco.sandbox.server;

import io.roboco.sandbox.plugin.OrchestratorHandle;

/** The server's own state as the plugin sees it: STARTING until ready, RUNNING, STOPPING during shutdown. */
final class ServerLifecycle implements OrchestratorHandle {
    private volatile State state = State.STARTING;

    @Override
    public State state() {
        return state;
    }

    void moveTo(State next) {
        state = next;
    }
}
