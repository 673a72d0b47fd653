package io.roboco.sandbox.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.it.ChildServer;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.Gate;
import io.roboco.sandbox.it.GatedEngines;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * While re-adoption runs at start (its liveness check of the kept sandbox parked at a gate), the server is
 * {@code starting}: request_sandbox is refused as retryable (guard 5) and the kept container is left alone; once the
 * check passes, the agent's next request is a cache hit with the same credentials.
 */
class ReadoptionWindowIT {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void whileReadoptionRunsRequestsAreRefusedRetryablyAndThenServedFromTheReadoptedSandbox() throws Exception {
        InMemorySettingsStore store = new InMemorySettingsStore(); // one store across both processes
        GatedEngines engines = new GatedEngines();
        EngineRegistry registry = engines.wrap(EngineRegistry.defaults());
        ServerConfig config = ServerConfig.fromEnv(Fixtures.serverEnv(dir.resolve("state"), "1s", "40s", "30s"))
                .withPort(ChildServer.freePort());
        String instance = null;
        try {
            RunningServer first = SandboxServer.start(
                    config, LocalImages.requireDockerAndImages(), registry, store, Clock.systemUTC());
            instance = first.instanceId();
            ApiClient api = new ApiClient(first.port());
            api.working("window-1", "window", "[\"postgres\"]");
            ApiClient.Reply before = api.requestSandboxRetrying("window-1", 3);
            assertThat(before.ok()).as("%s", before).isTrue();
            first.close();

            Gate check = engines.parkNextLivenessCheck("re-adoption's liveness check", port -> true);
            CompletableFuture<RunningServer> starting = CompletableFuture.supplyAsync(() -> SandboxServer.start(
                    config, LocalImages.requireDockerAndImages(), registry, store, Clock.systemUTC()));
            check.awaitParked(Duration.ofSeconds(60));

            ApiClient.Reply health = api.send("GET", "/healthz", null, null);
            ApiClient.Reply meanwhile = api.requestSandbox("window-1");
            check.open();
            RunningServer second = starting.get(120, TimeUnit.SECONDS);
            try {
                ApiClient.Reply after = api.requestSandbox("window-1");
                Fixtures.figure("ReadoptionWindowIT during re-adoption: /healthz "
                        + health.json().get("state") + ", request_sandbox "
                        + meanwhile.json().get("error") + " retryable="
                        + meanwhile.json().get("retryable") + "; after it: same credentials "
                        + after.grants().equals(before.grants()));
                assertThat(health.json()).containsEntry("state", "starting");
                assertThat(meanwhile.json())
                        .containsEntry("ok", false)
                        .containsEntry("error", "refused")
                        .containsEntry("retryable", true);
                assertThat((String) meanwhile.json().get("reason")).contains("starting");
                assertThat(check.overstayed()).isFalse();
                assertThat(after.grants()).isEqualTo(before.grants());
                assertThat(Fixtures.containersOf(instance)).hasSize(1);
            } finally {
                second.close();
            }
        } finally {
            System.out.println(
                    "ReadoptionWindowIT cleanup removed " + Fixtures.removeAllOf(instance) + " container(s)");
        }
    }
}
