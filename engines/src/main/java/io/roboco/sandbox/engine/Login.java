package io.roboco.sandbox.engine;

/** Which of a sandbox's two credentials a probe or connection uses. */
public enum Login {
    /** The plugin-held admin pair: readiness and activation only. */
    ADMIN,
    /** The agent's own least-privileged pair: what liveness re-verifies. */
    AGENT;

    public String user(Credentials credentials) {
        return this == ADMIN ? credentials.adminUser() : credentials.user();
    }

    public String password(Credentials credentials) {
        return this == ADMIN ? credentials.adminPassword() : credentials.password();
    }
}
