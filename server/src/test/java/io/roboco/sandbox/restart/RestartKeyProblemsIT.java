package io.roboco.sandbox.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.ChildServer;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.Probe;
import io.roboco.sandbox.secrets.CredentialCipher;
import io.roboco.sandbox.secrets.KeyFile;
import io.roboco.sandbox.settings.SealedContainer;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.crypto.SecretKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key and row problems at a restart are loud, never a crash: the standalone server (a child JVM) hands out sandboxes,
 * stops gracefully (keeping them, sealed), and something happens to the rows or the key before it starts again. A
 * ciphertext swapped with another row's, or altered, is refused: only those sandboxes are closed and re-provisioned. A
 * wrong key file, or a missing one, closes every sealed sandbox with the documented message, and agents get fresh
 * working sets. A key file that is not a key leaves the server running without re-adoption, as documented.
 */
class RestartKeyProblemsIT {
    private static final List<String> AGENTS = List.of("key-a", "key-b", "key-c", "key-d");

    @TempDir
    Path dir;

    private ChildServer server;
    private String instance;
    private int port;

    @AfterEach
    void cleanUp() throws Exception {
        if (server != null) {
            server.kill9();
        }
        System.out.println("RestartKeyProblemsIT cleanup removed " + Fixtures.removeAllOf(instance) + " container(s)");
    }

    private Path state() {
        return dir.resolve("state");
    }

    private Map<String, String> env() {
        return Fixtures.serverEnv(state(), "1s", "40s", "30s");
    }

    /** A server with every agent holding postgres + redis, then stopped gracefully (sandboxes kept); the grants. */
    private Map<String, Map<String, Map<String, String>>> handOutAndStop(Map<String, String> env) throws Exception {
        port = ChildServer.freePort();
        server = ChildServer.start(env, port, dir.resolve("server.log"));
        instance = Fixtures.instanceIdIn(state());
        Map<String, Map<String, Map<String, String>>> grants = new LinkedHashMap<>();
        for (String agent : AGENTS) {
            server.api.working(agent, "keys", "[\"postgres\",\"redis\"]");
            ApiClient.Reply r = server.api.requestSandboxRetrying(agent, 3);
            assertThat(r.ok()).as("%s", r).isTrue();
            grants.put(agent, r.grants());
        }
        assertThat(server.sigterm(60)).isTrue();
        server = null;
        return grants;
    }

    private String pgPassword(Map<String, Map<String, String>> grants) {
        return grants.get("postgres").get("ROBOCO_TEST_DB_PASSWORD");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aSwappedOrAlteredCiphertextIsRefusedOnlyThoseSandboxesAreReprovisionedAndNothingCrashes() throws Exception {
        Map<String, Map<String, Map<String, String>>> before = handOutAndStop(env());
        try (JdbcSettingsStore store = JdbcSettingsStore.embedded(state())) {
            List<SealedContainer> rows = store.sealedOf(instance);
            SealedContainer a = row(rows, "key-a", "postgres");
            SealedContainer b = row(rows, "key-b", "postgres");
            store.saveSealed(a.withSealed(b.sealed())); // swapped: each holds the other's ciphertext
            store.saveSealed(b.withSealed(a.sealed()));
            SealedContainer c = row(rows, "key-c", "redis");
            store.saveSealed(c.withSealed(flipOneBit(c.sealed())));
        }
        server = ChildServer.start(env(), port, dir.resolve("server.log"));

        for (String agent : List.of("key-a", "key-b", "key-c")) {
            ApiClient.Reply r = server.api.requestSandboxRetrying(agent, 3);
            assertThat(r.ok()).as("%s: %s", agent, r).isTrue();
            assertThat(pgPassword(r.grants()))
                    .as("%s re-provisioned", agent)
                    .isNotEqualTo(pgPassword(before.get(agent)));
            assertThat(Agents.failures(r.grants())).isEmpty();
        }
        ApiClient.Reply untouched = server.api.requestSandbox("key-d");
        assertThat(untouched.grants()).as("the untouched sandbox is re-adopted").isEqualTo(before.get("key-d"));
        String log = server.logText();
        Fixtures.figure(
                "RestartKeyProblemsIT swapped/altered ciphertext: 3 sandboxes refused and re-provisioned, 1 re-adopted; log: "
                        + line(log, "failed their integrity check"));
        assertThat(log)
                .contains("3 sealed credential(s) of instance " + instance
                        + " failed their integrity check (altered, or copied"
                        + " from another row), so their sandboxes are treated as dead");
        assertThat(log).contains("altered or belongs to another row");
        assertThat(log).doesNotContain("Exception in thread");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aWrongKeyFileClosesEverySealedSandboxWithTheDocumentedMessageAndAgentsGetFreshOnes() throws Exception {
        Map<String, Map<String, Map<String, String>>> before = handOutAndStop(env());
        Path keyFile = state().resolve("secret.key");
        String oldId = KeyFile.fingerprint(((KeyFile.Loaded.Key) KeyFile.load(keyFile, false)).key());
        SecretKey other = KeyFile.newKey();
        KeyFile.replace(keyFile, other);
        server = ChildServer.start(env(), port, dir.resolve("server.log"));

        assertFresh(before);
        String log = server.logText();
        Fixtures.figure("RestartKeyProblemsIT wrong key file: " + line(log, "were sealed under key(s)"));
        assertThat(log)
                .contains(before.size() * 2 + " sealed credential(s) of instance " + instance
                        + " were sealed under key(s) [" + oldId
                        + "], but the key file " + keyFile + " holds key " + KeyFile.fingerprint(other)
                        + ": they cannot be opened, so their"
                        + " sandboxes are treated as dead: records closed, containers removed, and each agent's next request_sandbox provisions"
                        + " a fresh set");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aMissingKeyFileIsGeneratedAgainAndTheSealedSandboxesAreClosedLoudly() throws Exception {
        Map<String, Map<String, Map<String, String>>> before = handOutAndStop(env());
        Path keyFile = state().resolve("secret.key");
        Files.delete(keyFile);
        server = ChildServer.start(env(), port, dir.resolve("server.log"));

        assertFresh(before);
        assertThat(Files.exists(keyFile)).isTrue();
        String log = server.logText();
        Fixtures.figure("RestartKeyProblemsIT missing key file: " + line(log, "did not exist"));
        assertThat(log)
                .contains("but the key file " + keyFile + " did not exist, so a new key")
                .contains("treated as dead");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aKeyFileThatIsNotAKeyLeavesTheServerRunningWithoutReadoptionAsDocumented() throws Exception {
        Path badKey = dir.resolve("not-a-key");
        Files.writeString(badKey, "this is not a key\n");
        Map<String, String> env = env();
        Map<String, Map<String, Map<String, String>>> before = handOutAndStop(env);
        env.put("ROBOCO_SANDBOX_SECRET_KEY_FILE", badKey.toString());
        server = ChildServer.start(env, port, dir.resolve("server.log"));

        assertFresh(before);
        String log = server.logText();
        Fixtures.figure(
                "RestartKeyProblemsIT a key file that is not a key: " + line(log, "ROBOCO_SANDBOX_SECRET_KEY_FILE:"));
        assertThat(log)
                .contains("ROBOCO_SANDBOX_SECRET_KEY_FILE: the key file " + badKey + " is not base64 of a 256-bit key")
                .contains("Until the key file is fixed, sandboxes are not sealed and a shutdown releases them");
        assertThat(Files.readString(badKey)).as("never overwritten").isEqualTo("this is not a key\n");
        assertThat(server.sigterm(60)).isTrue();
        server = null;
        assertThat(Fixtures.containersOf(instance))
                .as("without a usable key, a shutdown releases everything")
                .isEmpty();
    }

    /** Every agent's next request gives a fresh working set; the old credentials fail; the old containers are gone. */
    private void assertFresh(Map<String, Map<String, Map<String, String>>> before) throws Exception {
        for (Map.Entry<String, Map<String, Map<String, String>>> agent : before.entrySet()) {
            ApiClient.Reply r = server.api.requestSandboxRetrying(agent.getKey(), 3);
            assertThat(r.ok()).as("%s: %s", agent.getKey(), r).isTrue();
            assertThat(pgPassword(r.grants())).isNotEqualTo(pgPassword(agent.getValue()));
            assertThat(Agents.failures(r.grants()))
                    .as("fresh grants of %s work", agent.getKey())
                    .isEmpty();
            assertThat(Probe.tryUse("postgres", agent.getValue().get("postgres")))
                    .as("old credentials of %s fail", agent.getKey())
                    .isNotNull();
        }
    }

    private static SealedContainer row(List<SealedContainer> rows, String owner, String service) {
        return rows.stream()
                .filter(r -> r.owner().equals(owner) && r.service().equals(service))
                .findFirst()
                .orElseThrow();
    }

    private static String flipOneBit(String sealed) {
        assertThat(CredentialCipher.keyIdOf(sealed)).isNotNull();
        char[] text = sealed.toCharArray();
        int at = text.length - 6;
        text[at] = text[at] == 'A' ? 'B' : 'A';
        return new String(text);
    }

    private static String line(String log, String containing) {
        return log.lines().filter(l -> l.contains(containing)).findFirst().orElse("(no such line)");
    }
}
