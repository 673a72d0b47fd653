package io.roboco.sandbox.runtime;

/** A container-runtime fault (daemon unreachable, image missing, API error). The message says what to do. */
public class ContainerRuntimeException extends RuntimeException {
    public ContainerRuntimeException(String message) {
        super(message);
    }

    public ContainerRuntimeException(String message, Throwable cause) {
        super(message, cause);
    }
}
