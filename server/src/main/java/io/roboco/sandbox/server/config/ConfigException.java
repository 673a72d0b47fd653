package io.roboco.sandbox.server.config;

/** A setting the server refuses at start; the message names the setting and what to do. */
public final class ConfigException extends IllegalArgumentException {
    public ConfigException(String message) {
        super(message);
    }
}
