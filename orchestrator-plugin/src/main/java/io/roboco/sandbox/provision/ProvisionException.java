package io.roboco.sandbox.provision;

/**
 * A sandbox service could not be provisioned. The message is safe to show an agent (no secrets) and
 * says what happened, what was tried and what to do; {@link #retryable()} says whether trying again
 * may help (daemon down, readiness timeout) or not (feature missing from the image).
 */
public final class ProvisionException extends Exception {
    private final boolean retryable;

    public ProvisionException(String message, boolean retryable, Throwable cause) {
        super(message, cause);
        this.retryable = retryable;
    }

    public boolean retryable() {
        return retryable;
    }
}
