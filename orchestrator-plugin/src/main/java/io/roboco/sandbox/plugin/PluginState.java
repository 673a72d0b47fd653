package io.roboco.sandbox.plugin;

/**
 * A built plugin's state as its guards see it: STARTING while the builder wires and re-adopts, STOPPING once closing,
 * and otherwise whatever the host orchestrator's handle says.
 */
final class PluginState implements OrchestratorHandle {
    private final OrchestratorHandle host;
    private volatile State own = State.STARTING;

    PluginState(OrchestratorHandle host) {
        this.host = host;
    }

    @Override
    public State state() {
        State mine = own;
        return mine == State.RUNNING ? host.state() : mine;
    }

    void moveTo(State next) {
        own = next;
    }
}
