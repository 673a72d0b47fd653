package io.roboco.sandbox.settings;

import java.util.Optional;

/**
 * Stored feature-flag values. The effective value is read once at start by the composition root
 * (the environment overrides the stored value); a stored change is "pending restart" until then.
 */
public interface FlagStore {
    String SANDBOX_DB_ENABLED = "ROBOCO_SANDBOX_DB_ENABLED";

    Optional<Boolean> storedFlag(String name);

    void storeFlag(String name, boolean enabled);
}
