package io.roboco.sandbox.security;

import io.roboco.sandbox.engine.SecretSource;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Passwords that are easy to find anywhere they leak: {@code CANARY} + random letters/digits. Remembers each one handed out. */
final class CanarySecretSource implements SecretSource {
    static final String MARK = "CANARY";
    private static final String ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    private final SecretSource ids = SecretSource.secure();
    private final SecureRandom random = new SecureRandom();
    final List<String> issued = new CopyOnWriteArrayList<>();

    @Override
    public String password() {
        StringBuilder sb = new StringBuilder(MARK);
        for (int i = 0; i < 26; i++) {
            sb.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        issued.add(sb.toString());
        return sb.toString();
    }

    @Override
    public String identifier() {
        return ids.identifier();
    }
}
