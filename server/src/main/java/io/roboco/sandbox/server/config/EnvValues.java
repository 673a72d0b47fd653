package io.roboco.sandbox.server.config;

import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.settings.ByteSize;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Reading one {@code ROBOCO_SANDBOX_*} setting from the environment: unset or blank means the default, anything
 * else is parsed or refused with a {@link ConfigException} naming the setting. One place, so every settings section
 * reads and refuses values alike.
 */
final class EnvValues {
    private EnvValues() {}

    /** The setting's value, trimmed; {@code null} when it is unset or blank. */
    static String value(Map<String, String> env, String key) {
        String v = env.get(key);
        return v == null || v.isBlank() ? null : v.trim();
    }

    /** A duration such as {@code 10m} or {@code 24h} (see {@link Durations}). */
    static Duration duration(Map<String, String> env, String key, Duration fallback) {
        String raw = value(env, key);
        return raw == null ? fallback : Durations.parse(key, raw);
    }

    /** A whole number; its range is the caller's to check. */
    static int number(Map<String, String> env, String key, int fallback) {
        String raw = value(env, key);
        if (raw == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            throw new ConfigException(key + "='" + raw + "' is not a whole number");
        }
    }

    /** A byte size such as {@code 64k} or {@code 1m} (see {@link ByteSize}); its lower bound is the caller's to check. */
    static long size(Map<String, String> env, String key, long fallback) {
        String raw = value(env, key);
        if (raw == null) {
            return fallback;
        }
        try {
            return ByteSize.parse(raw);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + ": " + e.getMessage() + " (default " + ByteSize.format(fallback) + ")");
        }
    }

    /**
     * A yes/no setting: {@code true 1 on yes} or {@code false 0 off no} in any case; anything else is refused with
     * {@code use}, which says what each value means and what the default is.
     */
    static Boolean bool(Map<String, String> env, String key, Boolean fallback, String use) {
        String raw = value(env, key);
        if (raw == null) {
            return fallback;
        }
        switch (raw.toLowerCase(Locale.ROOT)) {
            case "true", "1", "on", "yes" -> {
                return true;
            }
            case "false", "0", "off", "no" -> {
                return false;
            }
            default -> throw new ConfigException(key + "='" + Names.printable(raw) + "' is not a boolean; use " + use);
        }
    }
}
