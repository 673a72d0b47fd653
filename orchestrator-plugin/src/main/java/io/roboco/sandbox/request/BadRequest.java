package io.roboco.sandbox.request;

/**
 * A malformed call: bad agent slug, unknown verb, wrong argument types, a service name of the wrong
 * shape. A fault of the caller, answered with HTTP 400 by the server; the message says what was
 * wrong and echoes caller input only in a bounded, escaped form.
 */
public final class BadRequest extends RuntimeException {
    public BadRequest(String message) {
        super(message);
    }
}
