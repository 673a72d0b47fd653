package io.roboco.sandbox.engine;

/** Held for one ready warm-pool container until it is claimed; see {@link Engine#openClaimSession}. */
public interface ClaimSession extends AutoCloseable {
    /** {@link Engine#prepareClaim} for {@code target} (the claim's credentials), using what this session holds. Once. */
    void claim(ProbeTarget target) throws Exception;

    /** Releases what the session holds; never throws. */
    @Override
    void close();
}
