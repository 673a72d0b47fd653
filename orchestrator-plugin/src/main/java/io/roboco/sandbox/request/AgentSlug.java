package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.NameShape;

/** An agent's slug: lower-case letters, digits, {@code _ . -}; 1-63 characters, starting with a letter or digit. */
public record AgentSlug(String value) {
    public static final NameShape SHAPE = NameShape.of("agent slug", "[a-z0-9][a-z0-9_.-]{0,62}", 63);

    /** @throws BadRequest naming the shape, when {@code value} is not a slug */
    public AgentSlug {
        if (!SHAPE.matches(value)) {
            throw new BadRequest(SHAPE.malformed(value));
        }
    }

    public static AgentSlug parse(String value) {
        return new AgentSlug(value);
    }

    public static boolean isValid(String value) {
        return SHAPE.matches(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
