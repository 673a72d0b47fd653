package io.roboco.sandbox.limits;

import java.io.IOException;

/** A request body went past its limit while it was read; {@link BodyLimitFilter} answers 413 for it. */
public final class BodyTooLarge extends IOException {
    private final long limit;

    public BodyTooLarge(long limit) {
        super("request body larger than " + limit + " bytes");
        this.limit = limit;
    }

    public long limit() {
        return limit;
    }
}
