package io.roboco.sandbox.ledger;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Every container this process owns, and why: the one place that answers "is this container ours?". The provisioner
 * enters a container the moment the runtime has started it; its owners move it from reason to reason (a move is one
 * atomic replace of the container's entry, so it is never unaccounted for in between); removal strikes it. The
 * janitor sweeps only what is not here.
 *
 * <p>A container's life in this process, by {@link Reason}: {@code IN_FLIGHT} (starting, becoming ready, being
 * prepared) → {@code PENDING} (ready, its siblings not yet) → {@code HELD} (in an agent's sandbox set); a warm-pool
 * container goes {@code IN_FLIGHT} → {@code POOLED} → {@code CLAIMED} (being made an agent's) → {@code PENDING} →
 * {@code HELD}. A new reason (a sandbox record's, a container waiting to be re-adopted after a restart) is one more
 * constant; an entry's {@code owner} says whose it is in that reason's terms.
 */
public final class ContainerLedger implements OwnedContainers {
    /** Why this process keeps a container. */
    public enum Reason {
        /** Started and becoming ready, or being prepared, for its owner: an agent, or {@code -} for the warm pool. */
        IN_FLIGHT,
        /** Ready, waiting for its siblings of the same call; the owner is the agent. */
        PENDING,
        /** Ready and idle in the warm pool; the owner is the pool key (engine and image). */
        POOLED,
        /** Taken from the warm pool, being made the agent's (the owner). */
        CLAIMED,
        /** In an agent's cached sandbox set; the owner is the agent. */
        HELD,
        /** Behind a named sandbox's record (no cache holds it; its owner has the credentials); the owner is the sandbox id. */
        RECORDED,
        /**
         * Found at start behind a record (or a sealed pool row) of this instance, waiting to be checked and re-adopted
         * or removed; the owner is the sandbox id (or {@code pool}).
         */
        ADOPTING
    }

    /** One container's entry: why it is kept, for whom, and since when (the last move). */
    public record Entry(String containerId, Reason reason, String owner, Instant since) {
        @Override
        public String toString() {
            return containerId + " " + reason.name().toLowerCase() + " (" + owner + ") since " + since;
        }
    }

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final Clock clock;

    public ContainerLedger(Clock clock) {
        this.clock = clock;
    }

    /** Enters a container this process has just started (or taken over); replaces any entry it had. */
    public void enter(String containerId, Reason reason, String owner) {
        entries.put(containerId, new Entry(containerId, reason, owner, clock.instant()));
    }

    /**
     * Moves a container this ledger holds to {@code reason} for {@code owner}; false (and nothing entered) when it is
     * not here, e.g. it was removed meanwhile: a struck container never comes back by a late move.
     */
    public boolean move(String containerId, Reason reason, String owner) {
        return entries.computeIfPresent(containerId, (id, e) -> new Entry(id, reason, owner, clock.instant())) != null;
    }

    /** {@link #move} for each container. */
    public void moveAll(Iterable<String> containerIds, Reason reason, String owner) {
        containerIds.forEach(id -> move(id, reason, owner));
    }

    /** Strikes a container: removed, or no longer this process's to keep. Idempotent. */
    public void strike(String containerId) {
        entries.remove(containerId);
    }

    /** Strikes every container {@code owner} holds for {@code reason} (what a finished call left behind); returns their ids. */
    public Set<String> strikeAll(Reason reason, String owner) {
        Set<String> struck = entries.values().stream()
                .filter(e -> e.reason() == reason && e.owner().equals(owner))
                .map(Entry::containerId)
                .collect(Collectors.toSet());
        struck.forEach(id -> entries.computeIfPresent(
                id, (k, e) -> e.reason() == reason && e.owner().equals(owner) ? null : e));
        return struck;
    }

    public boolean owns(String containerId) {
        return entries.containsKey(containerId);
    }

    public Optional<Entry> entry(String containerId) {
        return Optional.ofNullable(entries.get(containerId));
    }

    /** Every container kept, whatever the reason: what the janitor must never take. */
    @Override
    public Set<String> ownedIds() {
        return Set.copyOf(entries.keySet());
    }

    /** The containers kept for {@code reason}. */
    public Set<String> ids(Reason reason) {
        return entries.values().stream()
                .filter(e -> e.reason() == reason)
                .map(Entry::containerId)
                .collect(Collectors.toUnmodifiableSet());
    }

    /** A snapshot of every entry, for pages, diagnostics and tests. */
    public List<Entry> entries() {
        return List.copyOf(entries.values());
    }
}
