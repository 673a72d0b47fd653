package io.roboco.sandbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.postgres.PostgresEngine;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProbesTest {
    private final Credentials credentials = new PostgresEngine().newCredentials(SecretSource.secure());

    @Test
    void allOfChecksInOrderAndStopsAtTheFirstFailure() {
        List<String> seen = new ArrayList<>();
        ReadinessProbe probe = Probes.allOf(
                t -> seen.add("a"),
                t -> {
                    seen.add("b");
                    throw new IllegalStateException("b down");
                },
                t -> seen.add("c"));
        assertThatThrownBy(() -> probe.check(ProbeTarget.of(new Endpoint("127.0.0.1", 1), credentials)))
                .hasMessage("b down");
        assertThat(seen).containsExactly("a", "b");
    }

    @Test
    void runningFailsOnceTheContainerHasStopped() {
        Endpoint endpoint = new Endpoint("127.0.0.1", 1);
        assertThatCode(() -> Probes.running().check(ProbeTarget.of(endpoint, credentials)))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> Probes.running().check(new ProbeTarget(endpoint, credentials, () -> false, () -> "")))
                .hasMessageContaining("not running");
    }

    @Test
    void livenessOfAStoppedContainerFailsWithoutTouchingTheNetwork() {
        ProbeTarget stopped = new ProbeTarget(new Endpoint("127.0.0.1", 1), credentials, () -> false, () -> "");
        for (Engine engine : EngineRegistry.defaults().all()) {
            assertThatThrownBy(() -> engine.liveness().check(stopped))
                    .as(engine.name())
                    .hasMessageContaining("not running");
        }
    }

    @Test
    void everyReadinessProbeFailsFastWhenNothingListens() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        ProbeTarget nobody = ProbeTarget.of(new Endpoint("127.0.0.1", port), credentials);
        for (Engine engine : EngineRegistry.defaults().all()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> engine.readiness().check(nobody))
                    .as(engine.name())
                    .isNotNull();
            assertThat((System.nanoTime() - start) / 1_000_000)
                    .as(engine.name() + " probe ms")
                    .isLessThan(2_500);
        }
    }
}
