package io.roboco.sandbox.engine;

/**
 * One sandbox's secrets. The admin pair never leaves the plugin; the agent pair only ever appears
 * in the verb's ok-envelope. {@link #toString()} redacts both passwords.
 */
public record Credentials(String adminUser, String adminPassword, String user, String password, String database) {
    @Override
    public String toString() {
        return "Credentials[adminUser=" + adminUser + ", user=" + user + ", database=" + database
                + ", passwords=<redacted>]";
    }
}
