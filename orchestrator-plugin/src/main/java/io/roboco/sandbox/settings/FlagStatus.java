package io.roboco.sandbox.settings;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The feature flag as both the API and the Feature Flags page show it: stored vs effective.
 * {@code pendingRestart} is true while the value the next start would take (the env override if
 * set, else the stored value, else off) differs from the effective one.
 *
 * @param stored      the value saved from the admin page or API, or null when never saved
 * @param effective   the value this process started with; changes only on restart
 * @param envOverride {@code ROBOCO_SANDBOX_DB_ENABLED} from the environment, or null when unset
 */
public record FlagStatus(Boolean stored, boolean effective, Boolean envOverride, boolean pendingRestart) {

    public static FlagStatus read(FlagStore store, boolean effective, Boolean envOverride) {
        Boolean stored = store.storedFlag(FlagStore.SANDBOX_DB_ENABLED).orElse(null);
        boolean next = envOverride != null ? envOverride : Boolean.TRUE.equals(stored);
        return new FlagStatus(stored, effective, envOverride, next != effective);
    }

    public Map<String, Object> toJson() {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("stored", stored);
        view.put("effective", effective);
        view.put("env_override", envOverride);
        view.put("pending_restart", pendingRestart);
        return view;
    }
}
