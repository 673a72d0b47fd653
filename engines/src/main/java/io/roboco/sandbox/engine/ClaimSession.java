package io.roboco.sandbox.engine;

/**
 * Held for one ready warm-pool container until it is claimed; see {@link Engine#openClaimSession}. It is opened with
 * the credentials its claim will hand out, drawn then from the plugin's {@link SecretSource}, so whatever depends on
 * them (a role and its password verifier, the login that proves them) can be done before an agent asks.
 */
public interface ClaimSession extends AutoCloseable {
    /**
     * The credentials the claim hands out: the ones the session was opened with, except that a session that made the
     * agent's role ahead in the pool container's own database names that database.
     */
    Credentials credentials();

    /** {@link Engine#prepareClaim} for {@code target} (carrying {@link #credentials}), using what this session holds. Once. */
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

    /** What a session that holds nothing does at claim: {@link Engine#prepareClaim}, say. */
    @FunctionalInterface
    interface AtClaim {
        void claim(ProbeTarget target) throws Exception;
    }

    /** A session that holds nothing: its claim hands out {@code credentials} and runs {@code atClaim} then. */
    static ClaimSession holdingNothing(Credentials credentials, AtClaim atClaim) {
        return new ClaimSession() {
            @Override
            public Credentials credentials() {
                return credentials;
            }

            @Override
            public void claim(ProbeTarget target) throws Exception {
                atClaim.claim(target);
            }

            @Override
            public void close() {}
        };
    }
}
