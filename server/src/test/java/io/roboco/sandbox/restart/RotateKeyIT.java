package io.roboco.sandbox.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.ChildServer;
import io.roboco.sandbox.it.ChildServers;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.OperatorCli;
import io.roboco.sandbox.secrets.CredentialCipher;
import io.roboco.sandbox.secrets.KeyFile;
import io.roboco.sandbox.settings.SealedContainer;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code roboco-sandbox rotate-key} as an operator runs it ({@code java -jar}, the server's environment): refused while
 * the server answers; with it stopped, every row is re-sealed under a new key that replaces the key file (0600); the
 * next start re-adopts every sandbox under the new key, with the same credentials.
 */
class RotateKeyIT {
    @TempDir
    Path dir;

    @RegisterExtension
    final ChildServers servers = new ChildServers();

    private ChildServer server;
    private String instance;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void rotateKeyReSealsEveryRowAndTheNextStartReadoptsUnderTheNewKey() throws Exception {
        Path state = dir.resolve("state");
        Map<String, String> env = Fixtures.serverEnv(state, "1s", "40s", "30s");
        int port = ChildServer.freePort();
        env.put("ROBOCO_SANDBOX_PORT", Integer.toString(port));
        server = servers.start(env, port, dir.resolve("server.log"));
        instance = Fixtures.instanceIdIn(state);
        server.api.working("rotate-1", "rotate", "[\"postgres\",\"redis\",\"mongo\"]");
        ApiClient.Reply before = server.api.requestSandboxRetrying("rotate-1", 3);
        assertThat(before.ok()).as("%s", before).isTrue();
        Path keyFile = state.resolve("secret.key");
        String oldId = KeyFile.fingerprint(((KeyFile.Loaded.Key) KeyFile.load(keyFile, false)).key());

        OperatorCli.Run refused = rotateKey(env);
        assertThat(refused.exit())
                .as("refused while the server answers: %s", refused.out())
                .isEqualTo(1);
        assertThat(refused.out()).contains("stop it first");

        assertThat(server.sigterm(60)).isTrue();
        server = null;
        OperatorCli.Run rotated = rotateKey(env);
        assertThat(rotated.exit()).as(rotated.out()).isZero();
        String newId = KeyFile.fingerprint(((KeyFile.Loaded.Key) KeyFile.load(keyFile, false)).key());
        assertThat(newId).isNotEqualTo(oldId);
        assertThat(rotated.out())
                .contains(oldId + " -> " + newId)
                .contains("3 row(s) re-sealed")
                .contains("0 could not be opened");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)))
                .isEqualTo("rw-------");
        try (JdbcSettingsStore store = JdbcSettingsStore.embedded(state)) {
            assertThat(store.sealedOf(instance))
                    .extracting(SealedContainer::sealed)
                    .allSatisfy(s -> assertThat(CredentialCipher.keyIdOf(s)).isEqualTo(newId));
        }

        server = servers.start(env, port, dir.resolve("server.log"));
        ApiClient.Reply after = server.api.requestSandbox("rotate-1");
        String said = rotated.out()
                .lines()
                .filter(l -> l.startsWith("rotated the credential key"))
                .findFirst()
                .orElse(rotated.out());
        Fixtures.figure("RotateKeyIT rotate-key: " + said + "; after the restart the same credentials "
                + after.grants().equals(before.grants()));
        assertThat(after.grants()).isEqualTo(before.grants());
        assertThat(Agents.failures(after.grants())).isEmpty();
        assertThat(server.logText()).contains("under key " + newId);
    }

    private static OperatorCli.Run rotateKey(Map<String, String> env) throws Exception {
        return OperatorCli.run(env, "rotate-key");
    }
}
