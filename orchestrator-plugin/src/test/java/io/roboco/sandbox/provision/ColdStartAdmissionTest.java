package io.roboco.sandbox.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.StubEngine;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The start admission at the provisioner's container-start seam, with the fake runtime: a start that has no turn
 * makes no runtime call; one that waited too long fails retryably with its place in the queue and starts nothing.
 * The turn is held by parking the first start in its readiness ({@link StubEngine#holdReadinessWhen}).
 */
class ColdStartAdmissionTest {
    private final StubEngine postgres = new StubEngine("postgres", Set.of());
    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        postgres.releaseHeld();
        threads.shutdownNow();
    }

    private ServiceProvisioner provisioner(Duration queueWait) {
        return new ServiceProvisioner(
                runtime,
                ProvisionSettings.defaults("test-instance")
                        .withReadyTimeout(Duration.ofSeconds(20))
                        .withConcurrentStarts(1)
                        .withStartQueue(8, queueWait),
                SecretSource.secure(),
                Clock.systemUTC());
    }

    @Test
    void aStartWithoutATurnMakesNoRuntimeCallUntilTheTurnIsFree() throws Exception {
        ServiceProvisioner provisioner = provisioner(Duration.ofMinutes(5));
        ServicePlan plan = Plans.of(provisioner.settings(), postgres);
        postgres.holdReadinessWhen(c -> true);
        Future<ServiceInstance> first = threads.submit(() -> provisioner.provision(plan, "dev-1", "shop"));
        assertThat(postgres.awaitHeld(Duration.ofSeconds(10)))
                .as("the first start holds the turn")
                .isTrue();
        Future<ServiceInstance> second = threads.submit(() -> provisioner.provision(plan, "dev-2", "shop"));
        awaitWaiting(provisioner, 1);

        assertThat(runtime.startCount())
                .as("the second start waits before docker run")
                .isEqualTo(1);
        assertThat(provisioner.startQueue().snapshot().inFlight()).isEqualTo(1);

        postgres.releaseHeld();
        assertThat(first.get(20, TimeUnit.SECONDS).containerId()).isNotBlank();
        assertThat(second.get(20, TimeUnit.SECONDS).containerId()).isNotBlank();
        assertThat(runtime.startCount()).isEqualTo(2);
        assertThat(provisioner.startQueue().snapshot().inFlight()).isZero();
    }

    @Test
    void aStartThatWaitedTooLongFailsRetryablyWithItsPlaceAndStartsNothing() throws Exception {
        ServiceProvisioner provisioner = provisioner(Duration.ofMillis(200));
        ServicePlan plan = Plans.of(provisioner.settings(), postgres);
        postgres.holdReadinessWhen(c -> true);
        Future<ServiceInstance> first = threads.submit(() -> provisioner.provision(plan, "dev-1", "shop"));
        assertThat(postgres.awaitHeld(Duration.ofSeconds(10))).isTrue();

        assertThatThrownBy(() -> provisioner.provision(plan, "dev-2", "shop"))
                .isInstanceOfSatisfying(ProvisionException.class, e -> {
                    assertThat(e.retryable()).isTrue();
                    assertThat(e.getMessage())
                            .contains("dev-2")
                            .contains("for its turn to start a container")
                            .contains("position 1 of 1 in the start queue")
                            .contains("estimated wait about");
                });
        assertThat(runtime.startCount()).isEqualTo(1);

        postgres.releaseHeld();
        first.get(20, TimeUnit.SECONDS);
        assertThat(provisioner.startQueue().snapshot().timedOut()).isEqualTo(1);
    }

    private static void awaitWaiting(ServiceProvisioner provisioner, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (provisioner.startQueue().snapshot().waiting() != n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "not " + n + " waiting: " + provisioner.startQueue().snapshot());
            }
            Thread.sleep(2);
        }
    }
}
