package io.roboco.sandbox.mongocompat.scram;

/**
 * A SCRAM exchange that cannot go on. The message is safe to log and to send to the client: it never
 * holds a password, a proof or a key, and it does not say whether the user exists.
 */
public final class ScramException extends Exception {
    private final boolean protocolError;

    private ScramException(String message, boolean protocolError) {
        super(message);
        this.protocolError = protocolError;
    }

    /** The client sent something that is not a SCRAM message (mongod: {@code ProtocolError}). */
    static ScramException malformed(String what) {
        return new ScramException(what, true);
    }

    /** Unknown user or wrong proof (mongod: {@code AuthenticationFailed}). */
    static ScramException authenticationFailed() {
        return new ScramException("Authentication failed.", false);
    }

    public boolean isProtocolError() {
        return protocolError;
    }
}
