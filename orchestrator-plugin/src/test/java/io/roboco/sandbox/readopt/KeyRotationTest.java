package io.roboco.sandbox.readopt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.secrets.CredentialCipher;
import io.roboco.sandbox.secrets.KeyFile;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.SealedContainer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import javax.crypto.SecretKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyRotationTest {
    private final InMemorySettingsStore store = new InMemorySettingsStore();

    @TempDir
    Path dir;

    private static ServiceInstance instance(String containerId, String password) {
        return new ServiceInstance(
                "postgres",
                "img:1",
                containerId,
                "name-" + containerId,
                new Endpoint("127.0.0.1", 40_000),
                new Credentials("admin", "admin-" + password, "agent", password, "db"),
                Set.of(),
                Instant.EPOCH,
                "15");
    }

    private SecretKey keyIn(Path file) {
        return ((KeyFile.Loaded.Key) KeyFile.load(file, false)).key();
    }

    @Test
    void everyRowIsResealedUnderTheNewKeyWhichThenReplacesTheKeyFile() throws Exception {
        Path file = dir.resolve("secret.key");
        KeyFile.generate(file);
        CredentialVault before = new CredentialVault(store, new CredentialCipher(keyIn(file)), "inst-a");
        before.sealSet("sbx_1", "dev-1", List.of(instance("c1", "pw-1"), instance("c2", "pw-2")));
        before.sealPooled("postgres@img:1", instance("c3", "pw-3"));
        new CredentialVault(store, new CredentialCipher(KeyFile.newKey()), "inst-b")
                .sealSet("sbx_9", "dev-9", List.of(instance("c9", "pw-9")));
        String oldId = before.cipher().keyId();

        KeyRotation.Result result = KeyRotation.rotate(store, "inst-a", file);

        assertThat(result.oldKeyId()).isEqualTo(oldId);
        assertThat(result.newKeyId()).isNotEqualTo(oldId).isEqualTo(KeyFile.fingerprint(keyIn(file)));
        assertThat(result.resealed()).isEqualTo(3);
        assertThat(result.unopenable()).isZero();
        assertThat(Files.exists(VaultKey.next(file))).isFalse();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        CredentialVault after = new CredentialVault(store, new CredentialCipher(keyIn(file)), "inst-a");
        for (SealedContainer row : store.sealedOf("inst-a")) {
            assertThat(CredentialCipher.keyIdOf(row.sealed())).isEqualTo(result.newKeyId());
            assertThat(after.open(row).credentials().password()).startsWith("pw-");
        }
        assertThat(store.sealedOf("inst-b"))
                .singleElement()
                .satisfies(r -> assertThat(CredentialCipher.keyIdOf(r.sealed()))
                        .as("another instance's rows are not this key's")
                        .isNotEqualTo(result.newKeyId()));
    }

    @Test
    void anInterruptedRotationIsFinishedByTheNextOneAndAStartMeanwhileOpensBoth() throws Exception {
        Path file = dir.resolve("secret.key");
        KeyFile.generate(file);
        SecretKey old = keyIn(file);
        CredentialVault vault = new CredentialVault(store, new CredentialCipher(old), "inst-a");
        vault.sealSet("sbx_1", "dev-1", List.of(instance("c1", "pw-1"), instance("c2", "pw-2")));
        // As if rotate-key died after writing the next key and re-sealing one row.
        SecretKey next = KeyFile.generate(VaultKey.next(file));
        CredentialCipher rotating = new CredentialCipher(next, List.of(old));
        SealedContainer first = store.sealedOf("inst-a").get(0);
        Credentials opened = rotating.open(
                first.sealed(), CredentialVault.binding(first.sandboxId(), first.owner(), first.containerId()));
        store.resealIf(
                first.sandboxId(),
                first.containerId(),
                first.sealed(),
                rotating.seal(opened, CredentialVault.binding(first.sandboxId(), first.owner(), first.containerId())));

        VaultKey.Opened meanwhile = VaultKey.open(file);
        CredentialVault started = new CredentialVault(store, meanwhile.cipher(), "inst-a");
        for (SealedContainer row : store.sealedOf("inst-a")) {
            assertThat(started.open(row).credentials().password())
                    .as("a server started mid-rotation opens every row")
                    .startsWith("pw-");
        }

        KeyRotation.Result result = KeyRotation.rotate(store, "inst-a", file);

        assertThat(result.newKeyId()).isEqualTo(KeyFile.fingerprint(next));
        assertThat(result.alreadyNew()).isEqualTo(1);
        assertThat(result.resealed()).isEqualTo(1);
        assertThat(keyIn(file).getEncoded()).isEqualTo(next.getEncoded());
    }

    @Test
    void aRowNeitherKeyOpensIsCountedAndLeftAlone() throws Exception {
        Path file = dir.resolve("secret.key");
        KeyFile.generate(file);
        new CredentialVault(store, new CredentialCipher(KeyFile.newKey()), "inst-a")
                .sealSet("sbx_1", "dev-1", List.of(instance("c1", "pw")));

        KeyRotation.Result result = KeyRotation.rotate(store, "inst-a", file);

        assertThat(result.unopenable()).isEqualTo(1);
        assertThat(result.resealed()).isZero();
    }

    @Test
    void aMissingOrUnusableKeyFileIsRefusedWithASentenceNamingIt() throws Exception {
        Path missing = dir.resolve("nope.key");
        assertThatThrownBy(() -> KeyRotation.rotate(store, "inst-a", missing))
                .isInstanceOf(KeyRotation.RotationException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("does not exist");
        Path bad = dir.resolve("bad.key");
        Files.writeString(bad, "garbage");
        assertThatThrownBy(() -> KeyRotation.rotate(store, "inst-a", bad))
                .isInstanceOf(KeyRotation.RotationException.class)
                .hasMessageContaining(bad.toString())
                .hasMessageNotContaining("garbage");
    }
}
