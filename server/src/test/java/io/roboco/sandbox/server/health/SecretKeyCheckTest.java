package io.roboco.sandbox.server.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.readopt.CredentialVault;
import io.roboco.sandbox.secrets.CredentialCipher;
import io.roboco.sandbox.secrets.KeyFile;
import io.roboco.sandbox.server.config.RestartSettings;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import javax.crypto.SecretKey;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretKeyCheckTest {
    @TempDir
    Path state;

    private final InMemorySettingsStore store = new InMemorySettingsStore();
    private ServerConfig config;
    private Path keyFile;

    @BeforeEach
    void instance() throws Exception {
        Files.writeString(state.resolve("instance-id"), "sbx-test\n");
        config = ServerConfig.defaults(state);
        keyFile = config.secretKeyFile();
    }

    private void sealOneUnder(SecretKey key) {
        new CredentialVault(store, new CredentialCipher(key), "sbx-test")
                .sealSet(
                        "sbx_1",
                        "dev-1",
                        List.of(new ServiceInstance(
                                "postgres",
                                "img:1",
                                "c1",
                                "n1",
                                new Endpoint("127.0.0.1", 1),
                                new Credentials("a", "ap", "u", "p", "d"),
                                Set.of(),
                                Instant.EPOCH)));
    }

    private DoctorCheck check() {
        return SecretKeyCheck.check(config, store);
    }

    @Test
    void aGoodKeyThatOpensTheRowsIsOkAndItsContentNeverShows() throws Exception {
        SecretKey key = KeyFile.generate(keyFile);
        sealOneUnder(key);
        DoctorCheck c = check();
        assertThat(c.status()).isEqualTo(DoctorCheck.Status.OK);
        assertThat(c.detail())
                .contains(KeyFile.fingerprint(key))
                .contains("1 sealed credential(s)")
                .doesNotContain(Files.readString(keyFile).strip());
    }

    @Test
    void aMissingKeyIsAWarningWithoutRowsAndAFailureWithThem() {
        assertThat(check().status()).isEqualTo(DoctorCheck.Status.WARN);
        sealOneUnder(KeyFile.newKey());
        assertThat(check().status()).isEqualTo(DoctorCheck.Status.FAIL);
        assertThat(check().fix()).contains("restore it");
    }

    @Test
    void aFileThatIsNotAKeyOrIsReadableByOthersFails() throws Exception {
        Files.writeString(keyFile, "nope");
        assertThat(check().status()).isEqualTo(DoctorCheck.Status.FAIL);
        assertThat(check().detail()).contains(keyFile.toString()).doesNotContain("nope");
        Files.delete(keyFile);
        KeyFile.generate(keyFile);
        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(check().status()).isEqualTo(DoctorCheck.Status.FAIL);
        assertThat(check().fix()).isEqualTo("chmod 600 " + keyFile);
    }

    @Test
    void rowsSealedUnderAnotherKeyAreAWarningThatSaysWhatHappensNext() throws Exception {
        KeyFile.generate(keyFile);
        sealOneUnder(KeyFile.newKey());
        DoctorCheck c = check();
        assertThat(c.status()).isEqualTo(DoctorCheck.Status.WARN);
        assertThat(c.detail()).contains("1 of 1").contains("treated as dead at the next start");
    }

    @Test
    void withReadoptionOffThereIsNothingToCheck() {
        config = config.withRestart(RestartSettings.defaults().withReadopt(false));
        assertThat(check().status()).isEqualTo(DoctorCheck.Status.OK);
        assertThat(check().detail()).contains("ROBOCO_SANDBOX_READOPT=false");
    }
}
