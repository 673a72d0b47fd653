package io.roboco.sandbox.readopt;

import io.roboco.sandbox.secrets.CredentialCipher;
import io.roboco.sandbox.secrets.UnsealException;
import io.roboco.sandbox.settings.SealedContainer;
import java.util.Set;
import java.util.TreeSet;

/**
 * Re-adoption's count of sealed rows that did not open for a reason of the key (sealed under another key, altered or
 * copied from another row, or no usable key at all), turned into one loud message that names the key file, the key
 * ids (never a key) and what happens to those sandboxes. Thread-safe (the checks run in parallel).
 */
final class KeyTally {
    private final KeyStatus key;
    private final CredentialCipher cipher;
    private final String instance;

    private final Set<String> foreignKeys = new TreeSet<>();
    private int foreign;
    private int altered;

    /** @param cipher null when the key is unusable */
    KeyTally(KeyStatus key, CredentialCipher cipher, String instance) {
        this.key = key;
        this.cipher = cipher;
        this.instance = instance;
    }

    /** A row that did not open: under another key than the current one, or (same key) altered or moved. */
    synchronized void failed(SealedContainer row, UnsealException e) {
        String id = CredentialCipher.keyIdOf(row.sealed());
        if (id != null && !cipher.keyId().equals(id)) {
            foreign++;
            foreignKeys.add(id);
        } else {
            altered++;
        }
    }

    /** The message, or null when every row opened; {@code total} is how many sealed rows the instance had. */
    synchronized String warning(int total) {
        String consequence =
                "their sandboxes are treated as dead: records closed, containers removed, and each agent's next"
                        + " request_sandbox provisions a fresh set";
        if (!key.usable()) {
            return "ROBOCO_SANDBOX_SECRET_KEY_FILE: " + key.unusable() + ". "
                    + (total == 0
                            ? ""
                            : total + " sealed credential(s) of instance " + instance + " cannot be opened, so "
                                    + consequence + ". ")
                    + "Until the key file is fixed, sandboxes are not sealed and a shutdown releases them (as with"
                    + " ROBOCO_SANDBOX_READOPT=false)";
        }
        if (foreign > 0) {
            String why = key.generated()
                    ? "the key file " + key.file() + " did not exist, so a new key (" + cipher.keyId()
                            + ") was generated"
                    : "the key file " + key.file() + " holds key " + cipher.keyId();
            return foreign + " sealed credential(s) of instance " + instance + " were sealed under key(s) "
                    + foreignKeys + ", but "
                    + why + ": they cannot be opened, so " + consequence
                    + ". Keep the key file with the state directory (back it"
                    + " up with it) so that restarts keep sandboxes (ROBOCO_SANDBOX_SECRET_KEY_FILE)";
        }
        if (altered > 0) {
            return altered + " sealed credential(s) of instance " + instance
                    + " failed their integrity check (altered, or copied" + " from another row), so " + consequence;
        }
        return null;
    }
}
