package io.roboco.sandbox.engine;

/** A seed could not be applied; the message names the failing statement or the tool's message, and never a secret. */
public final class SeedException extends Exception {
    public SeedException(String message) {
        super(message);
    }
}
