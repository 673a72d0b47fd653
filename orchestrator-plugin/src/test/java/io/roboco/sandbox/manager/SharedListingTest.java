package io.roboco.sandbox.manager;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerState;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SharedListingTest {
    private final ExecutorService executor = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private static ContainerState of(String id, String agent) {
        return new ContainerState(id, id, "img", true, "running", null, false, Map.of(SandboxLabels.AGENT, agent), 0);
    }

    @Test
    void setsThatLookWhileAListingRunsShareItAndEachGetsOnlyItsAgentsContainers() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        SharedListing listing = new SharedListing(
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

        CompletableFuture<List<ContainerState>> alice = listing.of("alice");
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<List<ContainerState>> bob = listing.of("bob");
        CompletableFuture<List<ContainerState>> carol = listing.of("carol");
        release.countDown();

        assertThat(alice.get(10, TimeUnit.SECONDS))
                .extracting(ContainerState::id)
                .containsExactly("a1", "a2");
        assertThat(bob.get(10, TimeUnit.SECONDS)).extracting(ContainerState::id).containsExactly("b1");
        assertThat(carol.get(10, TimeUnit.SECONDS)).isEmpty();
        assertThat(calls).hasValue(1);
        assertThat(listing.listings()).isEqualTo(1);

        // once it is done, the next set lists again
        assertThat(listing.of("alice").get(10, TimeUnit.SECONDS)).hasSize(2);
        assertThat(calls).hasValue(2);
    }
}
