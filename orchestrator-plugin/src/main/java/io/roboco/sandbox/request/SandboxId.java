package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.NameShape;

/** A sandbox record's id: {@value #PREFIX} and 1-64 lower-case hex digits (the book makes them of 20). */
public record SandboxId(String value) {
    public static final String PREFIX = "sbx_";
    public static final NameShape SHAPE = NameShape.of(
            "sandbox id", PREFIX + "[0-9a-f]{1,64}", PREFIX.length() + 64, PREFIX + " and 1-64 hex digits");

    /** @throws BadRequest naming the shape, when {@code value} is not an id */
    public SandboxId {
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
