package io.roboco.sandbox.manager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerState;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LeftoversTest {
    private final ExecutorService executor = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private static ContainerState of(String id, String agent) {
        return new ContainerState(id, id, "img", true, "running", null, false, Map.of(SandboxLabels.AGENT, agent), 0);
    }

    @Test
    void oneListingServesEveryAgentAndEachAgentsLeftoversAreHandedOutOnce() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        Leftovers leftovers = new Leftovers(
                () -> {
                    calls.incrementAndGet();
                    started.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return List.of(of("a1", "alice"), of("b1", "bob"), of("a2", "alice"));
                },
                executor);

        CompletableFuture<List<ContainerState>> alice = leftovers.of("alice");
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<List<ContainerState>> carol = leftovers.of("carol"); // while the listing runs
        release.countDown();

        assertThat(alice.get(10, TimeUnit.SECONDS))
                .extracting(ContainerState::id)
                .containsExactly("a1", "a2");
        assertThat(carol.get(10, TimeUnit.SECONDS)).isEmpty();
        // after the listing: bob's from the same listing; alice's second new set finds none (handed out once)
        assertThat(leftovers.of("bob").get(10, TimeUnit.SECONDS))
                .extracting(ContainerState::id)
                .containsExactly("b1");
        assertThat(leftovers.of("alice").get(10, TimeUnit.SECONDS)).isEmpty();
        assertThat(calls).hasValue(1);
        assertThat(leftovers.listings()).isEqualTo(1);
    }

    @Test
    void aListingThatFailedIsMadeAgainByTheNextSet() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Leftovers leftovers = new Leftovers(
                () -> {
                    if (calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("daemon unreachable");
                    }
                    return List.of(of("a1", "alice"));
                },
                executor);

        assertThatThrownBy(() -> leftovers.of("alice").get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining("daemon unreachable");
        assertThat(leftovers.of("alice").get(10, TimeUnit.SECONDS))
                .extracting(ContainerState::id)
                .containsExactly("a1");
        assertThat(calls).hasValue(2);
    }
}
