package io.roboco.sandbox.plugin;

import java.time.Duration;

/**
 * What happened, for metrics: told by the plugin and the janitor's chores, counted by whoever listens
 * (the server exports them through Micrometer). Every argument is from a small fixed set, never an
 * agent, project or sandbox id. Implementations must be fast and must not throw.
 */
public interface SandboxEvents {

    /** A granted {@code request_sandbox}; {@code path} is {@code hit}, {@code pool} or {@code cold}. */
    void granted(String path, Duration took);

    /** A refusal; {@code code} is {@code flag_off}, {@code no_task}, {@code not_opted_in}, {@code not_allowed}, {@code unavailable}, {@code role}, {@code owner_quota}, {@code project_quota}, {@code name_taken}. */
    void refused(String code);

    /** An invalid_state; {@code code} is {@code capacity} or {@code provisioning}. */
    void invalidState(String code);

    /** The janitor removed containers; {@code cause} is {@code orphan} or {@code expired}. */
    void janitorRemoved(String cause, int containers);

    static SandboxEvents none() {
        return None.INSTANCE;
    }

    final class None implements SandboxEvents {
        static final None INSTANCE = new None();

        @Override
        public void granted(String path, Duration took) {}

        @Override
        public void refused(String code) {}

        @Override
        public void invalidState(String code) {}

        @Override
        public void janitorRemoved(String cause, int containers) {}
    }
}
