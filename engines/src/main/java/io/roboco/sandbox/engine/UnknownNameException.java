package io.roboco.sandbox.engine;

/** A caller named an engine or feature that is not known or not allowed. The message lists what is. */
public final class UnknownNameException extends IllegalArgumentException {
    public UnknownNameException(String message) {
        super(message);
    }
}
