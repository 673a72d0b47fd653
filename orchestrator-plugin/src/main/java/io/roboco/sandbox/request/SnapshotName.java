package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.engine.NameShape;

/** A schema snapshot's name within its sandbox: a checkpoint name's shape. */
public record SnapshotName(String value) {
    public static final NameShape SHAPE = CheckpointName.SHAPE.as("snapshot name");

    /** @throws BadRequest naming the shape, when {@code value} is not of it */
    public SnapshotName {
        if (!SHAPE.matches(value)) {
            throw new BadRequest(SHAPE.malformed(value));
        }
    }

    public static boolean isValid(String value) {
        return SHAPE.matches(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
