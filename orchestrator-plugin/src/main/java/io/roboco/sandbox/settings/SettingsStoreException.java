package io.roboco.sandbox.settings;

/**
 * A settings-store fault (database unreachable, schema refused, statement failed). The message names
 * the store (never a password) and says what to do.
 */
public class SettingsStoreException extends RuntimeException {
    public SettingsStoreException(String message) {
        super(message);
    }

    public SettingsStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
