package io.roboco.sandbox.provision;

import java.util.Optional;

/**
 * A sandbox service could not be provisioned. The message is safe to show an agent (no secrets) and
 * says what happened, what was tried and what to do; {@link #retryable()} says whether trying again
 * may help (daemon down, readiness timeout) or not (feature missing from the image).
 */
public final class ProvisionException extends Exception {
    private final boolean retryable;
    private final QueueStanding queue;

    public ProvisionException(String message, boolean retryable, Throwable cause) {
        this(message, retryable, cause, null);
    }

    /** A refusal of the start queue's, with where the start stood in it ({@code queue}, null: none). */
    public ProvisionException(String message, boolean retryable, Throwable cause, QueueStanding queue) {
        super(message, cause);
        this.retryable = retryable;
        this.queue = queue;
    }

    /** Where the refused start stood in the start queue, when the queue refused it. */
    public Optional<QueueStanding> queue() {
        return Optional.ofNullable(queue);
    }

    public boolean retryable() {
        return retryable;
    }
}
