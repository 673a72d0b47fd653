package io.roboco.sandbox.engine;

import java.util.List;

/**
 * Checkpoint and rewind of the agent's data inside its own sandbox, with the same connection string
 * ({@link Engine#checkpoints}): a checkpoint ({@link CheckpointName}) is a copy the agent cannot reach; a rewind puts a copy of it back under
 * the agent's database (or keyspace), so host, port, user and password stay. Both run on the plugin-held admin
 * credential and may close the agent's sessions for the moment of the copy; the result says how many.
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

    /** The sandbox's checkpoints, by name. */
    List<Checkpoint> list(ProbeTarget target) throws Exception;
}
