package io.roboco.sandbox.engine;

import java.security.SecureRandom;

/** Random secrets and identifiers for credentials. Injected so tests can make them predictable. */
public interface SecretSource {
    /** A password: letters and digits only (safe in URLs, shells and SQL literals), at least 24 characters. */
    String password();

    /** A short lower-case identifier suffix, letters and digits, e.g. for role and database names. */
    String identifier();

    static SecretSource secure() {
        SecureRandom random = new SecureRandom();
        String alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
        String lower = "abcdefghijkmnopqrstuvwxyz23456789";
        return new SecretSource() {
            @Override
            public String password() {
                return draw(alphabet, 32);
            }

            @Override
            public String identifier() {
                return draw(lower, 10);
            }

            private String draw(String from, int length) {
                StringBuilder sb = new StringBuilder(length);
                for (int i = 0; i < length; i++) {
                    sb.append(from.charAt(random.nextInt(from.length())));
                }
                return sb.toString();
            }
        };
    }
}
