package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.NameShape;

/**
 * A service (engine) name as a caller writes it: lower-case, starting with a letter; 1-32 characters. Whether an engine
 * of that name exists, and the project opted into it, is decided later.
 */
public record ServiceName(String value) {
    public static final NameShape SHAPE = NameShape.of("service name", "[a-z][a-z0-9_-]{0,31}", 32);

    /** @throws BadRequest naming the shape, when {@code value} is not of it */
    public ServiceName {
        if (!SHAPE.matches(value)) {
            throw new BadRequest(SHAPE.malformed(value));
        }
    }

    public static ServiceName parse(String value) {
        return new ServiceName(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
