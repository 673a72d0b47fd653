package io.roboco.sandbox.hostile;

import io.roboco.sandbox.engine.SecretSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The product's secure secrets, each password remembered so a test can look for it wherever it must not be. */
final class RecordingSecrets implements SecretSource {
    private final SecretSource secure = SecretSource.secure();
    final List<String> passwords = new CopyOnWriteArrayList<>();

    @Override
    public String password() {
        String password = secure.password();
        passwords.add(password);
        return password;
    }

    @Override
    public String identifier() {
        return secure.identifier();
    }

    /** The first remembered password {@code text} contains, or null. */
    String firstIn(String text) {
        return passwords.stream().filter(text::contains).findFirst().orElse(null);
    }
}
