package io.roboco.sandbox.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.Credentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import javax.crypto.SecretKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CredentialCipherTest {
    private static final Credentials CREDS =
            new Credentials("admin_x", "admin-secret-1", "agent_y", "agent-secret-2", "sandbox_z");
    private static final RowBinding ROW = new RowBinding("sbx_1", "dev-1", "c0ffee");

    private final SecretKey key = KeyFile.newKey();
    private final CredentialCipher cipher = new CredentialCipher(key);

    @Test
    void opensWhatItSealedForTheSameRow() throws Exception {
        String sealed = cipher.seal(CREDS, ROW);
        assertThat(cipher.open(sealed, ROW)).isEqualTo(CREDS);
    }

    @Test
    void theSealedTextCarriesNoPlaintextAndAFreshNoncePerWrite() {
        String a = cipher.seal(CREDS, ROW);
        String b = cipher.seal(CREDS, ROW);
        assertThat(a).isNotEqualTo(b).doesNotContain("secret").doesNotContain("agent_y");
        String decoded = new String(Base64.getDecoder().decode(a.split("\\.")[2]));
        assertThat(decoded).doesNotContain("agent-secret-2").doesNotContain("admin-secret-1");
    }

    @Test
    void aCiphertextCopiedOntoAnotherRowFailsToOpen() {
        String sealed = cipher.seal(CREDS, ROW);
        for (RowBinding other : new RowBinding[] {
            new RowBinding("sbx_2", "dev-1", "c0ffee"),
            new RowBinding("sbx_1", "dev-2", "c0ffee"),
            new RowBinding("sbx_1", "dev-1", "beef")
        }) {
            assertThatThrownBy(() -> cipher.open(sealed, other))
                    .isInstanceOf(UnsealException.class)
                    .hasMessageContaining("altered or belongs to another row");
        }
    }

    @Test
    void bindingsThatConcatenateAlikeStillDiffer() {
        String sealed = cipher.seal(CREDS, new RowBinding("ab", "c", "d"));
        assertThatThrownBy(() -> cipher.open(sealed, new RowBinding("a", "bc", "d")))
                .isInstanceOf(UnsealException.class);
    }

    @Test
    void aTamperedCiphertextFailsToOpen() {
        String sealed = cipher.seal(CREDS, ROW);
        String[] parts = sealed.split("\\.", 3);
        byte[] raw = Base64.getDecoder().decode(parts[2]);
        raw[raw.length - 20] ^= 1;
        String tampered = parts[0] + "." + parts[1] + "." + Base64.getEncoder().encodeToString(raw);
        assertThatThrownBy(() -> cipher.open(tampered, ROW)).isInstanceOf(UnsealException.class);
        assertThatThrownBy(() -> cipher.open("garbage", ROW)).isInstanceOf(UnsealException.class);
        assertThatThrownBy(() -> cipher.open(parts[0] + "." + parts[1] + ".!!", ROW))
                .isInstanceOf(UnsealException.class);
    }

    @Test
    void anotherKeyCannotOpenAndTheMessageNamesKeyIdsOnly() {
        String sealed = cipher.seal(CREDS, ROW);
        CredentialCipher other = new CredentialCipher(KeyFile.newKey());
        assertThatThrownBy(() -> other.open(sealed, ROW))
                .isInstanceOf(UnsealException.class)
                .hasMessageContaining(cipher.keyId())
                .hasMessageNotContaining("secret");
        assertThat(CredentialCipher.keyIdOf(sealed)).isEqualTo(cipher.keyId());
    }

    @Test
    void aCipherMidRotationOpensUnderEitherKeyAndSealsUnderTheNewOne() throws Exception {
        String old = cipher.seal(CREDS, ROW);
        CredentialCipher rotating = new CredentialCipher(KeyFile.newKey(), List.of(key));

        assertThat(rotating.open(old, ROW)).isEqualTo(CREDS);
        assertThat(rotating.sealedUnderCurrentKey(old)).isFalse();
        String resealed = rotating.seal(CREDS, ROW);
        assertThat(rotating.sealedUnderCurrentKey(resealed)).isTrue();
        assertThat(CredentialCipher.keyIdOf(resealed))
                .isEqualTo(rotating.keyId())
                .isNotEqualTo(cipher.keyId());
        assertThatThrownBy(() -> cipher.open(resealed, ROW)).isInstanceOf(UnsealException.class);
    }

    @Test
    void theKeyFileIsGeneratedOnceWithMode0600AndReadBack(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("secret.key");
        KeyFile.Loaded first = KeyFile.load(file, true);
        assertThat(first).isInstanceOf(KeyFile.Loaded.Key.class);
        assertThat(((KeyFile.Loaded.Key) first).generated()).isTrue();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        SecretKey key = ((KeyFile.Loaded.Key) first).key();

        KeyFile.Loaded again = KeyFile.load(file, true);
        assertThat(((KeyFile.Loaded.Key) again).generated()).isFalse();
        assertThat(((KeyFile.Loaded.Key) again).key().getEncoded()).isEqualTo(key.getEncoded());
    }

    @Test
    void anUnusableKeyFileIsAReasonNamingTheFileNeverItsContent(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("secret.key");
        assertThat(KeyFile.load(file, false)).isInstanceOf(KeyFile.Loaded.Unusable.class);
        Files.writeString(file, "c2hvcnQ=\n");
        KeyFile.Loaded loaded = KeyFile.load(file, true);
        assertThat(loaded).isInstanceOf(KeyFile.Loaded.Unusable.class);
        assertThat(((KeyFile.Loaded.Unusable) loaded).reason())
                .contains(file.toString())
                .doesNotContain("c2hvcnQ");
    }
}
