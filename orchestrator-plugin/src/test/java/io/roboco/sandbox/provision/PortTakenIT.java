package io.roboco.sandbox.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.runtime.ContainerRuntime;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A host-mode port can be taken by another process between the moment it is picked and the moment the container
 * binds it. Forced here, not hoped for: the test listens on a port and hands exactly that port to the start. The real
 * server in the real image then fails to bind and exits; the start must remove that container and go again on a new
 * port, and, when every port it is given is taken, give up after {@link ColdStart#PORT_ATTEMPTS} with nothing left.
 */
class PortTakenIT {
    private static final String INSTANCE =
            "it-port-" + UUID.randomUUID().toString().substring(0, 8);
    private static final EngineRegistry REGISTRY = EngineRegistry.defaults();
    private static ContainerRuntime runtime;
    private static ProvisionSettings settings;
    private static ServerSocket taken;

    @BeforeAll
    static void connect() throws Exception {
        runtime = LocalImages.requireDockerAndImages();
        settings = ProvisionSettings.defaults(INSTANCE).withImages(LocalImages.IMAGES);
        taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }

    @AfterEach
    void removeOurs() {
        runtime.list(SandboxLabels.ofInstance(INSTANCE)).forEach(c -> runtime.remove(c.id()));
    }

    @AfterAll
    static void close() throws Exception {
        taken.close();
        runtime.close();
    }

    private static ColdStart coldStart(IntSupplier ports) {
        Clock clock = Clock.systemUTC();
        ContainerLedger ledger = new ContainerLedger(clock);
        Containers containers =
                new Containers(runtime, ledger, new Liveness(runtime, settings.readyTimeout()), settings.instanceId());
        StartDiagnosis diagnosis = new StartDiagnosis(runtime, containers, settings.readyTimeout());
        return new ColdStart(runtime, settings, SecretSource.secure(), clock, ledger, containers, diagnosis, ports);
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgres", "redis", "mongo"})
    void aPortTakenBeforeTheBindIsReplacedByANewOne(String service) throws Exception {
        Engine engine = REGISTRY.require(service);
        PortAllocator fresh = new PortAllocator();
        AtomicInteger handedOut = new AtomicInteger();
        ColdStart start = coldStart(() -> handedOut.getAndIncrement() == 0 ? taken.getLocalPort() : fresh.next());

        ColdStart.Started started =
                start.startReady(engine, settings.choose(engine, ""), settings.limits(), "agent-port", "it", false);

        assertThat(handedOut)
                .as("the first port was taken, so a second was asked for")
                .hasValue(2);
        assertThat(started.endpoint().port()).isNotEqualTo(taken.getLocalPort());
        assertThat(runtime.list(SandboxLabels.ofInstance(INSTANCE)))
                .as("the container that could not bind was removed; only the one that is ready is left")
                .singleElement()
                .satisfies(c -> assertThat(c.id()).isEqualTo(started.container().id()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgres"})
    void whenEveryPortIsTakenTheStartGivesUpWithNothingLeft(String service) {
        Engine engine = REGISTRY.require(service);
        AtomicInteger handedOut = new AtomicInteger();
        ColdStart start = coldStart(() -> {
            handedOut.incrementAndGet();
            return taken.getLocalPort();
        });

        assertThatThrownBy(() -> start.startReady(
                        engine, settings.choose(engine, ""), settings.limits(), "agent-port", "it", false))
                .isInstanceOf(ProvisionException.class)
                .hasMessageContaining("Address already in use")
                .hasMessageContaining("container removed");
        assertThat(handedOut).hasValue(ColdStart.PORT_ATTEMPTS);
        assertThat(runtime.list(SandboxLabels.ofInstance(INSTANCE))).isEmpty();
    }
}
