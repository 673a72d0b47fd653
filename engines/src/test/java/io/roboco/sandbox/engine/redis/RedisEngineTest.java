package io.roboco.sandbox.engine.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.Features;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.RecordingExec;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;
import io.roboco.sandbox.engine.UnknownNameException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RedisEngineTest {
    private final RedisEngine engine = new RedisEngine();
    private final Credentials credentials = engine.newCredentials(SecretSource.secure());

    @Test
    void adminIsTheDefaultUserAndTheAgentGetsItsOwn() {
        assertThat(credentials.adminUser()).isEqualTo("default");
        assertThat(credentials.user()).matches("agent_[a-z0-9]{10}");
        assertThat(credentials.database()).isEqualTo("0");
    }

    @Test
    void containerCommandFeedsTheAdminPasswordOnStdinAndStillStartsRedisServerThroughTheEntrypoint() {
        ContainerSpec spec = engine.containerSpec(new SpecRequest("redis:8-alpine", credentials, "127.0.0.1", 42000));
        assertThat(spec.env())
                .containsEntry("REDIS_ADMIN_PASSWORD", credentials.adminPassword())
                .containsEntry("REDIS_PORT", "42000");
        assertThat(spec.command()).hasSize(3).startsWith("sh", "-c");
        assertThat(String.join(" ", spec.command()))
                .doesNotContain(credentials.adminPassword())
                .doesNotContain("requirepass \"");
        assertThat(spec.command().get(2))
                .startsWith("exec docker-entrypoint.sh redis-server - ")
                .contains(
                        "--bind 127.0.0.1 --port 42000",
                        "--unixsocket /data/redis.sock --unixsocketperm 700",
                        "--enable-module-command local",
                        "--save ''",
                        "--appendonly no")
                .endsWith(" <<EOF\nrequirepass $REDIS_ADMIN_PASSWORD\nEOF\n");
        assertThat(spec.dataDir()).isEqualTo("/data");
    }

    @Test
    void readinessPingsTheServersOwnUnixSocketThroughAnExecWithThePasswordInTheEnv() throws Exception {
        RecordingExec exec = new RecordingExec()
                .answer(1, "", "Could not connect to Redis at /data/redis.sock: No such file or directory")
                .answer(0, "PONG\n", "");
        ProbeTarget target = new ProbeTarget(new Endpoint("127.0.0.1", 1), credentials, () -> true, () -> "", exec);
        assertThatThrownBy(() -> engine.readiness().check(target)).hasMessageContaining("Could not connect");
        engine.readiness().check(target);
        assertThat(exec.calls).allSatisfy(call -> {
            assertThat(call.command()).containsExactly("redis-cli", "-s", "/data/redis.sock", "PING");
            assertThat(call.env()).containsExactly(Map.entry("REDISCLI_AUTH", credentials.adminPassword()));
        });
    }

    @Test
    void aStartWaitsForTheContainersOwnLogToSayItListensWithoutAnExecOrATcpConnection() throws Exception {
        RecordingExec exec = new RecordingExec();
        String[] log = {"1:M 07 Dec 2026 18:33:53.098 * Server initialized\n"};
        ProbeTarget target = new ProbeTarget(new Endpoint("127.0.0.1", 1), credentials, () -> true, () -> log[0], exec);
        assertThatThrownBy(() -> engine.accepting().check(target)).hasMessageContaining("Ready to accept connections");
        log[0] += "1:M 07 Dec 2026 18:33:53.099 * Ready to accept connections tcp\n";
        engine.accepting().check(target);
        assertThat(exec.calls)
                .as("no exec: the log proves the port is the server's")
                .isEmpty();
    }

    @Test
    void adminWorkOnANetworkEndpointStaysInTheExec() {
        RecordingExec exec = new RecordingExec().answer(0, "OK\n", "").answer(0, "OK\n", "");
        ProbeTarget target =
                new ProbeTarget(new Endpoint("roboco-sbx-a-redis-x", 1), credentials, () -> true, () -> "", exec);
        // The agent's own PING over TCP fails (no such host here); the admin's ACL SETUSER went through the exec.
        assertThatThrownBy(() -> engine.prepareAgent(target)).isNotNull();
        assertThat(exec.calls).hasSize(2);
        assertThat(exec.calls.get(1).command())
                .containsExactly("redis-cli", "-s", "/data/redis.sock", "CONFIG", "SET", "loglevel", "nothing");
        assertThat(exec.calls).first().satisfies(call -> {
            assertThat(call.command())
                    .startsWith(
                            "redis-cli", "-s", "/data/redis.sock", "ACL", "SETUSER", credentials.user(), "reset", "on");
            assertThat(String.join(" ", call.command()))
                    .doesNotContain(credentials.password())
                    .doesNotContain(credentials.adminPassword());
            assertThat(call.env()).containsExactly(Map.entry("REDISCLI_AUTH", credentials.adminPassword()));
        });
        assertThat(RedisEngine.isLoopback(new Endpoint("127.0.0.1", 1))).isTrue();
        assertThat(RedisEngine.isLoopback(target.endpoint())).isFalse();
    }

    @Test
    void aMemoryLimitedContainerGetsMaxmemoryBelowTheLimitAndRefusesInsteadOfEvicting() {
        ContainerSpec limited =
                engine.containerSpec(new SpecRequest("redis:8-alpine", credentials, "127.0.0.1", 42000, 512L << 20));
        assertThat(limited.command().get(2)).contains(" --maxmemory 402653184 --maxmemory-policy noeviction <<EOF");
        assertThat(RedisEngine.maxmemory(512L << 20)).isEqualTo(384L << 20);
        ContainerSpec unlimited =
                engine.containerSpec(new SpecRequest("redis:8-alpine", credentials, "127.0.0.1", 42000));
        assertThat(unlimited.command().get(2)).doesNotContain("maxmemory");
    }

    @Test
    void bindHostThatIsNotAPlainAddressIsRefused() {
        assertThatThrownBy(() -> engine.containerSpec(new SpecRequest("img", credentials, "127.0.0.1; rm -rf /", 1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void envHasExactlyTheRedisKeysAndARedisUrl() {
        Map<String, String> env = engine.env(new Endpoint("127.0.0.1", 42000), credentials);
        assertThat(env)
                .containsOnlyKeys(
                        "ROBOCO_TEST_REDIS_HOST",
                        "ROBOCO_TEST_REDIS_PORT",
                        "ROBOCO_TEST_REDIS_USER",
                        "ROBOCO_TEST_REDIS_PASSWORD",
                        "ROBOCO_TEST_REDIS_URL");
        assertThat(env.get("ROBOCO_TEST_REDIS_URL"))
                .isEqualTo("redis://" + credentials.user() + ":" + credentials.password() + "@127.0.0.1:42000/0");
    }

    @Test
    void agentRulesDenyAdministrationExplicitly() {
        assertThat(RedisEngine.AGENT_RULES)
                .contains(
                        "+@all",
                        "-@admin",
                        "-@dangerous",
                        "-module",
                        "-config",
                        "-debug",
                        "-shutdown",
                        "-acl",
                        "-monitor",
                        "-replicaof",
                        "-slaveof",
                        "-save",
                        "-bgsave",
                        "-bgrewriteaof",
                        "-failover",
                        "-cluster");
        int lastAllow = RedisEngine.AGENT_RULES.lastIndexOf("+sort");
        assertThat(RedisEngine.AGENT_RULES.indexOf("-module")).isGreaterThan(lastAllow);
    }

    @Test
    void activationIsANoOpWhenTheModuleIsAlreadyLoaded() throws Exception {
        RecordingExec exec = new RecordingExec()
                .answer(0, "name\nsearch\nver\n80000\npath\n/usr/local/lib/redis/modules/redisearch.so\nargs\n", "");
        engine.activate(Features.require(engine, "search"), exec, credentials, "redis:8-alpine");
        assertThat(exec.calls).singleElement().satisfies(call -> {
            assertThat(call.env()).containsEntry("REDISCLI_AUTH", credentials.adminPassword());
            assertThat(String.join(" ", call.command()))
                    .contains("MODULE LIST")
                    .doesNotContain(credentials.adminPassword());
        });
    }

    @Test
    void activationLoadsTheFirstModuleFileFoundWithThePasswordOnlyInTheExecEnv() throws Exception {
        RecordingExec exec = new RecordingExec().answer(0, "", "").answer(0, "OK\n", "");
        engine.activate(Features.require(engine, "search"), exec, credentials, "roboco-sandbox/redis:7");
        assertThat(exec.calls).hasSize(2);
        RecordingExec.Call load = exec.calls.get(1);
        assertThat(load.command())
                .contains("/usr/lib/redis/modules/redisearch.so", "/usr/local/lib/redis/modules/redisearch.so");
        assertThat(String.join(" ", load.command()))
                .contains("MODULE LOAD")
                .doesNotContain(credentials.adminPassword());
        assertThat(load.env()).containsEntry("REDISCLI_AUTH", credentials.adminPassword());
    }

    @Test
    void missingModuleFileIsReportedAsUnavailableNamingFeatureAndImage() {
        RecordingExec exec =
                new RecordingExec().answer(0, "name\nft\nver\n10202\n", "").answer(44, "", "no module file among: ...");
        assertThatThrownBy(() ->
                        engine.activate(Features.require(engine, "json"), exec, credentials, "roboco-sandbox/redis:7"))
                .isInstanceOf(FeatureUnavailableException.class)
                .hasMessageContaining("'json'")
                .hasMessageContaining("'roboco-sandbox/redis:7'");
    }

    @Test
    void moduleLoadErrorReplyIsAFailureWithItsOutput() {
        RecordingExec exec = new RecordingExec()
                .answer(0, "", "")
                .answer(0, "ERR Error loading the extension. Please check the server logs.", "");
        assertThatThrownBy(() -> engine.activate(Features.require(engine, "bloom"), exec, credentials, "img"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Error loading the extension");
    }

    @Test
    void moduleOffTheAllowlistCannotBeAllowedSoNeverReachesActivation() {
        assertThatThrownBy(() -> Features.require(engine, "/tmp/evil.so"))
                .isInstanceOf(UnknownNameException.class)
                .hasMessageContaining("allowed: bloom, json, search");
        assertThat(Features.allow(engine, "Search")).isEmpty();
    }

    @Test
    void moduleListParsingFindsEveryName() {
        assertThat(RedisEngine.loadedNames("name\nsearch\nver\n1\nname\nReJSON\nver\n2\n"))
                .containsExactly("search", "ReJSON");
        assertThat(RedisEngine.loadedNames("")).isEmpty();
    }

    @Test
    void agentPasswordIsSentAsItsSha256() {
        assertThat(RedisEngine.sha256Hex("abc"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
