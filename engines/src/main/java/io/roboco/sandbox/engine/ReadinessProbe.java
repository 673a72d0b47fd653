package io.roboco.sandbox.engine;

/** Answers whether a sandbox is ready, once. {@link Readiness} polls it. */
@FunctionalInterface
public interface ReadinessProbe {
    /**
     * Returns normally when ready; throws (any exception, e.g. connection refused) when not yet.
     * Must not block longer than a second or so: the poller owns the total wait.
     */
    void check(ProbeTarget target) throws Exception;
}
