package io.roboco.sandbox.engine;

/**
 * A checkpoint's name, what a person would type (short, lower-case; {@link #SHAPE}). It lives here,
 * beside the engines, because an engine spends it: a Postgres checkpoint is a database named after the agent's database
 * plus this name, within Postgres' 63-byte identifier limit, and the engine refuses a bad one itself when called
 * directly. Snapshot and template names have the same shape ({@link #SHAPE}{@code .as(…)}).
 */
public record CheckpointName(String value) {
    public static final NameShape SHAPE = NameShape.of(
            "checkpoint name", "[a-z0-9][a-z0-9_-]{0,29}", 30, "1-30 of a-z 0-9 _ -, starting with a letter or digit");

    /** @throws UnknownNameException when {@code value} is not of the {@link #SHAPE} */
    public CheckpointName {
        if (!SHAPE.matches(value)) {
            throw new UnknownNameException(SHAPE.malformed(value));
        }
    }

    public static CheckpointName of(String value) {
        return new CheckpointName(value);
    }

    public static boolean isValid(String value) {
        return SHAPE.matches(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
