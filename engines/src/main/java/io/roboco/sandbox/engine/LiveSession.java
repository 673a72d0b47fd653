package io.roboco.sandbox.engine;

/** Repeated liveness checks of one sandbox, possibly over a held connection. See {@link Engine#openLiveSession}. */
public interface LiveSession extends AutoCloseable {
    /** Returns when the service answers; throws when it does not. Bounded by the engine's socket timeouts. */
    void check() throws Exception;

    /** Releases what the session holds; never throws. */
    @Override
    void close();
}
