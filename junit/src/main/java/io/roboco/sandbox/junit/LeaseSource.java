package io.roboco.sandbox.junit;

/**
 * Where sandboxes come from: a RoboCo server ({@link ServerLeases}) or the local Docker host ({@link LocalLeases}).
 * One per test run, closed at its end.
 */
interface LeaseSource extends AutoCloseable {
    Lease lease(LeaseRequest request) throws Exception;

    void release(Lease lease) throws Exception;

    /** For messages: where the sandboxes come from. */
    String describe();

    /** The project when neither the annotation nor ROBOCO_SANDBOX_PROJECT names one; null when it must be named. */
    String defaultProject();

    @Override
    default void close() throws Exception {}

    /** A server when {@code ROBOCO_SANDBOX_URL} is set, else the local Docker host. */
    static LeaseSource fromSettings() {
        String url = Env.setting("ROBOCO_SANDBOX_URL");
        if (url != null) {
            String token = Env.setting("ROBOCO_SANDBOX_CLIENT_TOKEN");
            if (token == null) {
                throw new IllegalStateException(
                        "ROBOCO_SANDBOX_URL is set (" + url + ") but ROBOCO_SANDBOX_CLIENT_TOKEN is"
                                + " not: ask the operator for the CI job's client token (roboco-sandbox client-token job:<name>)");
            }
            return new ServerLeases(url, token, Env.setting("ROBOCO_SANDBOX_OWNER"));
        }
        try {
            Class.forName("io.roboco.sandbox.plugin.SandboxPlugin", false, LeaseSource.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(
                    "no ROBOCO_SANDBOX_URL is set, and the local mode needs the embedded plugin:"
                            + " add io.roboco:orchestrator-plugin as a test dependency, or point ROBOCO_SANDBOX_URL at a RoboCo"
                            + " server (with ROBOCO_SANDBOX_CLIENT_TOKEN)");
        }
        return new LocalLeases();
    }
}
