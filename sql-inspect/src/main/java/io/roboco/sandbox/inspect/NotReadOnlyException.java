package io.roboco.sandbox.inspect;

/** Read-only could not be proven on an inspection connection; it serves nothing. */
final class NotReadOnlyException extends Exception {
    NotReadOnlyException(String message) {
        super(message);
    }
}
