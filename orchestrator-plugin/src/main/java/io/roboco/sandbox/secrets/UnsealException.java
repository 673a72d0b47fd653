package io.roboco.sandbox.secrets;

/** A sealed credential that cannot be opened: its sandbox is treated as dead (re-provisioned on its next call). */
public final class UnsealException extends Exception {
    public UnsealException(String message) {
        super(message);
    }
}
