package io.roboco.sandbox.manager;

import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerState;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * One daemon listing of this instance's sandbox containers, shared by the new sets that look for their agents' leftovers
 * while it runs (issue 21: a burst of 16 claims made 16 listings, each several ms of the daemon's CPU on a 2-core host
 * already saturated). Joining a listing that began before the call is enough: the leftovers it looks for are a previous
 * process's, there before this one started, and whatever this process holds is kept by the caller (the ledger).
 */
final class SharedListing {
    private final Supplier<List<ContainerState>> list;
    private final Executor executor;
    private CompletableFuture<List<ContainerState>> inFlight; // guarded by this
    private long listings; // guarded by this

    /** {@code list} lists this instance's containers and never throws (an empty list when the runtime fails). */
    SharedListing(Supplier<List<ContainerState>> list, Executor executor) {
        this.list = list;
        this.executor = executor;
    }

    /** {@code agent}'s containers, from the listing under way or a new one. */
    CompletableFuture<List<ContainerState>> of(String agent) {
        return current()
                .thenApply(all -> all.stream()
                        .filter(c -> agent.equals(c.labels().get(SandboxLabels.AGENT)))
                        .toList());
    }

    /** Listings made so far (tests). */
    synchronized long listings() {
        return listings;
    }

    private synchronized CompletableFuture<List<ContainerState>> current() {
        if (inFlight == null || inFlight.isDone()) {
            listings++;
            inFlight = CompletableFuture.supplyAsync(list, executor);
        }
        return inFlight;
    }
}
