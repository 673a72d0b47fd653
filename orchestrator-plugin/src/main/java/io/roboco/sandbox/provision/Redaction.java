package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.Credentials;

/** Removes a sandbox's passwords from text that came from its container or a driver, before it goes anywhere. */
final class Redaction {
    private Redaction() {}

    /** {@code text} with both passwords of {@code credentials} replaced by {@code <redacted>}; null reads as empty. */
    static String of(String text, Credentials credentials) {
        if (text == null) {
            return "";
        }
        String out = text;
        for (String secret : new String[] {credentials.password(), credentials.adminPassword()}) {
            if (secret != null && !secret.isEmpty()) {
                out = out.replace(secret, "<redacted>");
            }
        }
        return out;
    }
}
