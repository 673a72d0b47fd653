package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.NameShape;

/**
 * A caller's idempotency key (HTTP {@code Idempotency-Key}, MCP argument {@code idempotency_key}): 1-128 characters of
 * letters, digits and {@code _ . : + / = -}, so a UUID, a ULID or base64 fits; anything else is refused.
 */
public record IdempotencyKey(String value) {
    public static final NameShape SHAPE = NameShape.of(
            "idempotency key",
            "[A-Za-z0-9_.:+/=-]{1,128}",
            128,
            "1-128 letters, digits or _ . : + / = - (a UUID fits)");

    /** @throws BadRequest naming the shape, when {@code value} is not of it */
    public IdempotencyKey {
        if (value == null || !SHAPE.matches(value)) {
            throw new BadRequest(SHAPE.malformed(value));
        }
    }

    /** The key given as {@code field} ("'idempotency_key' must be an idempotency key (…); got '…'"). */
    public static IdempotencyKey parse(String field, Object raw) {
        if (!(raw instanceof String key) || !SHAPE.matches(key)) {
            throw new BadRequest("'" + field + "' must be an idempotency key (" + SHAPE.rule() + ")"
                    + (raw instanceof String s ? "; got '" + Names.printable(s) + "'" : ""));
        }
        return new IdempotencyKey(key);
    }

    @Override
    public String toString() {
        return value;
    }
}
