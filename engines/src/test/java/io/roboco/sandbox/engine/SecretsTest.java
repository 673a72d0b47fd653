package io.roboco.sandbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SecretsTest {
    private final SecretSource secrets = SecretSource.secure();

    @Test
    void passwordsAreAtLeast24AlphanumericCharactersAndDoNotRepeat() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String password = secrets.password();
            assertThat(password).hasSizeGreaterThanOrEqualTo(24).matches("[A-Za-z0-9]+");
            assertThat(seen.add(password)).isTrue();
        }
    }

    @Test
    void identifiersAreLowerCaseLettersAndDigits() {
        for (int i = 0; i < 1000; i++) {
            assertThat(secrets.identifier()).matches("[a-z0-9]{8,}");
        }
    }
}
