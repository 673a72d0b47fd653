package io.roboco.sandbox.manager;

import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * A previous process's containers of this instance, by agent, listed once: at this process's first new set. The
 * leftovers a new set looks for were there before this process started (one process runs an instance at a time), so a
 * listing made once this process runs has them all; whatever this process holds is kept by the caller (the ledger).
 * Each agent's are handed out once, to its first new set that looks. Issue 21: a daemon listing per new set cost the
 * daemon's CPU at every start of a burst, more the more containers were running; now a burst makes none. A listing that
 * fails is made again by the next set; what no set takes is the janitor's, as any orphan.
 */
final class Leftovers {
    private final Supplier<List<ContainerState>> list;
    private final Executor executor;
    private CompletableFuture<Map<String, List<ContainerState>>> listed; // guarded by this
    private long listings; // guarded by this

    /** {@code list} lists this instance's containers; it throws when the runtime cannot. */
    Leftovers(Supplier<List<ContainerState>> list, Executor executor) {
        this.list = list;
        this.executor = executor;
    }

    /** {@code agent}'s leftovers: from the one listing (made now when there is none yet), once; then none. */
    CompletableFuture<List<ContainerState>> of(String agent) {
        return listing().thenApply(byAgent -> {
            synchronized (byAgent) {
                List<ContainerState> theirs = byAgent.remove(agent);
                return theirs == null ? List.<ContainerState>of() : theirs;
            }
        });
    }

    /** Listings made so far (tests). */
    synchronized long listings() {
        return listings;
    }

    private synchronized CompletableFuture<Map<String, List<ContainerState>>> listing() {
        if (listed == null || listed.isCompletedExceptionally()) {
            listings++;
            listed = CompletableFuture.supplyAsync(() -> byAgent(list.get()), executor);
        }
        return listed;
    }

    private static Map<String, List<ContainerState>> byAgent(List<ContainerState> all) {
        Map<String, List<ContainerState>> byAgent = new HashMap<>();
        for (ContainerState c : all) {
            String agent = c.labels().get(SandboxLabels.AGENT);
            if (agent != null) {
                byAgent.computeIfAbsent(agent, a -> new ArrayList<>()).add(c);
            }
        }
        return byAgent;
    }
}
