package io.roboco.sandbox.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.store.TestPostgres;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two server instances (their own state directories, instance ids and key files) share one PostgreSQL store. Both
 * stop; one of B's sandboxes dies meanwhile (a container killed). A starts again and re-adopts exactly its own: B's
 * records stay live, B's sealed rows and containers untouched, the dead one included. Then B starts again: it
 * re-adopts its live sandbox, closes its dead one, and leaves A's alone.
 */
class RestartTwoInstancesIT {
    @RegisterExtension
    static final TestPostgres.PerClass POSTGRES = TestPostgres.perClass();

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void eachInstanceReadoptsOnlyItsOwnSandboxes() throws Exception {
        String url = POSTGRES.server().newDatabase();
        ServerConfig a = config("a");
        ServerConfig b = config("b");
        String instanceA = null;
        String instanceB = null;
        try {
            RunningServer serverA = start(a, url);
            RunningServer serverB = start(b, url);
            instanceA = serverA.instanceId();
            instanceB = serverB.instanceId();
            assertThat(instanceA).isNotEqualTo(instanceB);
            Map<String, Map<String, Map<String, String>>> grants = new LinkedHashMap<>();
            grants.putAll(provision(serverA, "two-a1", "two-a2"));
            grants.putAll(provision(serverB, "two-b1", "two-b2"));
            serverA.close();
            serverB.close();
            int containersOfB = Fixtures.containersOf(instanceB).size();
            String deadB = Fixtures.containersOf(instanceB).get(0);
            String deadOwner = LocalImages.docker(
                            "inspect", "-f", "{{index .Config.Labels \"roboco.sandbox.agent\"}}", deadB)
                    .strip();
            LocalImages.docker("kill", deadB);
            String liveOwner = deadOwner.equals("two-b1") ? "two-b2" : "two-b1";

            RunningServer againA = start(a, url);
            try {
                ApiClient api = new ApiClient(againA.port());
                for (String agent : List.of("two-a1", "two-a2")) {
                    assertThat(api.requestSandbox(agent).grants())
                            .as("%s re-adopted by A", agent)
                            .isEqualTo(grants.get(agent));
                }
                try (SettingsStore store = POSTGRES.server().openStore(url)) {
                    assertThat(live(store, instanceB))
                            .as("B's records after A's restart")
                            .containsExactlyInAnyOrder("two-b1", "two-b2");
                    assertThat(store.sealedOf(instanceB))
                            .as("B's sealed rows after A's restart")
                            .hasSize(4);
                }
                assertThat(Fixtures.containersOf(instanceB))
                        .as("B's containers, the dead one included")
                        .hasSize(containersOfB);
            } finally {
                againA.close();
            }

            RunningServer againB = start(b, url);
            try {
                ApiClient api = new ApiClient(againB.port());
                assertThat(api.requestSandbox(liveOwner).grants())
                        .as("%s re-adopted by B", liveOwner)
                        .isEqualTo(grants.get(liveOwner));
                ApiClient.Reply fresh = api.requestSandboxRetrying(deadOwner, 3);
                assertThat(fresh.ok()).isTrue();
                assertThat(fresh.grants().get("postgres").get("ROBOCO_TEST_DB_PASSWORD"))
                        .as("%s's dead set was closed: a fresh one", deadOwner)
                        .isNotEqualTo(grants.get(deadOwner).get("postgres").get("ROBOCO_TEST_DB_PASSWORD"));
                try (SettingsStore store = POSTGRES.server().openStore(url)) {
                    assertThat(live(store, instanceA))
                            .as("A's records after B's restart")
                            .containsExactlyInAnyOrder("two-a1", "two-a2");
                    assertThat(store.sealedOf(instanceA)).hasSize(4);
                    List<SandboxRecord> closed = store.sandboxes(new SandboxQuery(
                            deadOwner, null, Map.of(), EnumSet.of(SandboxState.DELETED), instanceB, Instant.now()));
                    assertThat(closed)
                            .singleElement()
                            .satisfies(r -> assertThat(r.deletedReason()).startsWith("closed at restart"));
                }
            } finally {
                againB.close();
            }
            Fixtures.figure(
                    "RestartTwoInstancesIT two instances on one PostgreSQL store: A re-adopted 2/2 of its own and touched 0 of B's"
                            + " (4 rows, " + containersOfB
                            + " containers); B re-adopted its live one, closed its dead one, touched 0 of A's");
        } finally {
            System.out.println("RestartTwoInstancesIT cleanup removed " + Fixtures.removeAllOf(instanceA) + " + "
                    + Fixtures.removeAllOf(instanceB) + " container(s)");
        }
    }

    private ServerConfig config(String name) {
        return ServerConfig.fromEnv(Fixtures.serverEnv(dir.resolve(name), "1s", "40s", "30s"))
                .withPort(0);
    }

    private static RunningServer start(ServerConfig config, String url) {
        return SandboxServer.start(
                config,
                LocalImages.requireDockerAndImages(),
                EngineRegistry.defaults(),
                POSTGRES.server().openStore(url),
                Clock.systemUTC());
    }

    private static Map<String, Map<String, Map<String, String>>> provision(RunningServer server, String... agents)
            throws Exception {
        ApiClient api = new ApiClient(server.port());
        Map<String, Map<String, Map<String, String>>> grants = new LinkedHashMap<>();
        for (String agent : agents) {
            api.working(agent, "two", "[\"postgres\",\"redis\"]");
            ApiClient.Reply r = api.requestSandboxRetrying(agent, 3);
            assertThat(r.ok()).as("%s", r).isTrue();
            grants.put(agent, r.grants());
        }
        return grants;
    }

    private static List<String> live(SettingsStore store, String instance) {
        return store
                .sandboxes(
                        new SandboxQuery(null, null, Map.of(), EnumSet.of(SandboxState.LIVE), instance, Instant.now()))
                .stream()
                .map(SandboxRecord::owner)
                .toList();
    }
}
