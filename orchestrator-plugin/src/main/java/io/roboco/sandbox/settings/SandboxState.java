package io.roboco.sandbox.settings;

import java.util.Locale;

/**
 * Where a sandbox record is in its life. It moves live → expired → deleted (or live → deleted) and
 * never back. An expired sandbox still has its containers until the janitor (or a cleanup) removes
 * them; it no longer counts against any quota.
 */
public enum SandboxState {
    LIVE,
    EXPIRED,
    DELETED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
