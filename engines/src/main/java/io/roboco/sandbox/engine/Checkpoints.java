package io.roboco.sandbox.engine;

import java.util.List;

/**
 * Checkpoint and rewind of the agent's data inside its own sandbox, with the same connection string
 * ({@link Engine#checkpoints}): a checkpoint ({@link CheckpointName}) is a copy the agent cannot reach; a rewind puts a copy of it back under
 * the agent's database (or keyspace), so host, port, user and password stay. Both run on the plugin-held admin
 * credential and may close the agent's sessions for the moment of the copy; the result says how many.
 *
 * <p>A sandbox of several services is checkpointed and rewound as one: the core first {@linkplain #prepareRewind
 * prepares} every service's rewind (the slow, failure-prone copy, while the agent's data is untouched), then
 * {@linkplain PreparedRewind#commit switches} each, and {@linkplain PreparedRewind#undo undoes} the switched ones when a
 * later one fails.
 */
public interface Checkpoints {
    /** One checkpoint of a sandbox. */
    record Checkpoint(String name, long sizeBytes) {}

    /** What a checkpoint or a rewind did: how many of the agent's sessions it closed, and how long it took. */
    record Result(String name, long sizeBytes, int sessionsClosed, long millis) {}

    /** Copies the agent's data as checkpoint {@code name} (replacing one of the same name). */
    Result checkpoint(ProbeTarget target, String name) throws Exception;

    /**
     * Puts checkpoint {@code name}'s data back in place of the agent's; the checkpoint stays, for another rewind.
     *
     * @throws UnknownNameException when there is no such checkpoint (the message lists the ones there are)
     */
    Result rewind(ProbeTarget target, String name) throws Exception;

    /**
     * The first half of a rewind: everything that can fail slowly (finding the checkpoint, copying it) is done, and the
     * agent's data is not touched yet. By default nothing is prepared and {@link PreparedRewind#commit} is the whole
     * {@link #rewind}, which cannot be undone.
     *
     * @throws UnknownNameException when there is no such checkpoint (the message lists the ones there are)
     */
    default PreparedRewind prepareRewind(ProbeTarget target, String name) throws Exception {
        return new PreparedRewind() {
            @Override
            public Result commit() throws Exception {
                return rewind(target, name);
            }

            @Override
            public boolean undoable() {
                return false;
            }

            @Override
            public void undo() {
                throw new UnsupportedOperationException("this engine's rewind cannot be undone");
            }

            @Override
            public void finish() {}

            @Override
            public void close() {}
        };
    }

    /** Removes checkpoint {@code name}; nothing when there is none. By default an engine cannot. */
    default void delete(ProbeTarget target, String name) throws Exception {
        throw new UnsupportedOperationException("this engine cannot delete a checkpoint");
    }

    /** The sandbox's checkpoints, by name. */
    List<Checkpoint> list(ProbeTarget target) throws Exception;

    /**
     * A rewind made ready on one service. {@link #commit} switches the agent's data to the checkpoint's; after it,
     * {@link #undo} puts the data as it was before the commit back; {@link #finish} drops what the commit set aside
     * (after every service of the sandbox committed); {@link #close} drops whatever is left (the prepared copy when
     * nothing was committed). Each is called at most once, in that order; close always.
     */
    interface PreparedRewind extends AutoCloseable {
        Result commit() throws Exception;

        /** Whether {@link #undo} works: the core switches the services whose rewind cannot be undone last. */
        default boolean undoable() {
            return true;
        }

        void undo() throws Exception;

        void finish() throws Exception;

        /** Never throws: what cannot be removed stays in the sandbox (and goes with it). */
        @Override
        void close();
    }
}
