package io.roboco.sandbox.readopt;

import java.nio.file.Path;

/**
 * What the server found at its key file ({@code ROBOCO_SANDBOX_SECRET_KEY_FILE}) at start: a key it read, a key it had
 * to generate (the file was missing), or no usable key and why (a sentence naming the file, never its content).
 */
public record KeyStatus(Path file, boolean generated, String unusable) {
    public static KeyStatus read(Path file) {
        return new KeyStatus(file, false, null);
    }

    public static KeyStatus generated(Path file) {
        return new KeyStatus(file, true, null);
    }

    public static KeyStatus unusable(Path file, String reason) {
        return new KeyStatus(file, false, reason);
    }

    public boolean usable() {
        return unusable == null;
    }
}
