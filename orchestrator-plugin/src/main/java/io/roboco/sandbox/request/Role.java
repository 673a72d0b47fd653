package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.NameShape;

/**
 * An agent's role as written in the role manifest and in a spawn: lower-case words, 1-32 characters (a service name's
 * shape). Which verbs it carries is the manifest's answer.
 */
public record Role(String value) {
    public static final NameShape SHAPE = ServiceName.SHAPE.as("role");

    /** @throws BadRequest naming the shape, when {@code value} is not of it */
    public Role {
        if (!SHAPE.matches(value)) {
            throw new BadRequest(SHAPE.malformed(value));
        }
    }

    public static Role parse(String value) {
        return new Role(value);
    }

    public static boolean isValid(String value) {
        return SHAPE.matches(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
