package io.roboco.sandbox.engine;

/** Held for one ready warm-pool container until it is claimed; see {@link Engine#openClaimSession}. */
public interface ClaimSession extends AutoCloseable {
    /**
     * The credentials the claim hands out, from {@code proposed} (made at claim time, with a fresh password): by default
     * the proposal; a session that made the agent's role and database ahead answers its own user and database name with
     * the proposal's password, which {@link #claim} then sets.
     */
    default Credentials credentials(Credentials proposed) {
        return proposed;
    }

    /** {@link Engine#prepareClaim} for {@code target} (the claim's credentials), using what this session holds. Once. */
    void claim(ProbeTarget target) throws Exception;

    /**
     * After a {@link #claim} that succeeded: the agent's own login this session made ahead, handed over as the sandbox's
     * liveness session (what {@link Engine#openLiveSession} would open), so the claimed sandbox needs no second login;
     * null when it holds none (the default). Once: this session no longer closes what it handed over.
     */
    default LiveSession handOverLiveSession() {
        return null;
    }

    /** Releases what the session holds; never throws. */
    @Override
    void close();
}
