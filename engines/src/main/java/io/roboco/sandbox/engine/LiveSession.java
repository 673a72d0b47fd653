package io.roboco.sandbox.engine;

/** Repeated liveness checks of one sandbox, possibly over a held connection. See {@link Engine#openLiveSession}. */
public interface LiveSession extends AutoCloseable {
    /** Returns when the service answers; throws when it does not. Bounded by the engine's socket timeouts. */
    void check() throws Exception;

    /**
     * True when a passing {@link #check} on its own proves the sandbox's container runs: the session holds a
     * connection that the agent's credential opened to the service in that container, so an answer on it can
     * only come from that (running) process — a stopped container closes it, a paused one lets it time out.
     * False (the default) for a check that opens a new connection each time: a port can be answered by
     * someone else, so the caller also asks the container runtime.
     */
    default boolean provesRunning() {
        return false;
    }

    /** Releases what the session holds; never throws. */
    @Override
    void close();
}
