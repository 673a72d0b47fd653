package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.NameShape;

/** A project's id: letters, digits, {@code _ . -}; 1-64 characters, starting with a letter or digit. */
public record ProjectId(String value) {
    public static final NameShape SHAPE = NameShape.of("project id", "[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", 64);

    /** @throws BadRequest naming the shape, when {@code value} is not an id */
    public ProjectId {
        if (!SHAPE.matches(value)) {
            throw new BadRequest(SHAPE.malformed(value));
        }
    }

    public static ProjectId parse(String value) {
        return new ProjectId(value);
    }

    public static boolean isValid(String value) {
        return SHAPE.matches(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
