package io.roboco.sandbox.pool;

import io.roboco.sandbox.engine.ClaimSession;
import io.roboco.sandbox.provision.ServiceInstance;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The warm pool's shelves, one per pool key: how many ready containers it keeps, those ready now, and whether one is
 * being started for it. A shelf that is removed (a seeded pool discarded) takes nothing more.
 */
final class Shelves {
    /** A ready container, what its claim holds open (null: nothing), and whether it is seeded. */
    record Pooled(ServiceInstance instance, ClaimSession session, boolean seeded) {
        void closeSession() {
            if (session != null) {
                session.close();
            }
        }
    }

    private final Map<String, Integer> targets = new ConcurrentHashMap<>();
    private final Map<String, ConcurrentLinkedDeque<Pooled>> ready = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> starting = new ConcurrentHashMap<>();

    /** A shelf for {@code key} keeping at least {@code target} ready containers. */
    void open(String key, int target) {
        targets.merge(key, target, Math::max);
        ready.putIfAbsent(key, new ConcurrentLinkedDeque<>());
        starting.putIfAbsent(key, new AtomicInteger());
    }

    /** The shelf's ready containers; null when there is no such shelf. */
    ConcurrentLinkedDeque<Pooled> ready(String key) {
        return ready.get(key);
    }

    int size(String key) {
        ConcurrentLinkedDeque<Pooled> shelf = ready.get(key);
        return shelf == null ? 0 : shelf.size();
    }

    int target(String key) {
        return targets.getOrDefault(key, 0);
    }

    /** 1 while a container is being started for the shelf; null when there is no such shelf. */
    AtomicInteger starting(String key) {
        return starting.get(key);
    }

    /** The first ready container of {@code key} whose features {@code asked} all names, taken off the shelf; null when none. */
    Pooled take(String key, Set<String> asked) {
        ConcurrentLinkedDeque<Pooled> shelf = ready.get(key);
        if (shelf == null) {
            return null;
        }
        for (Pooled candidate : shelf) {
            if (asked.containsAll(candidate.instance().features()) && shelf.remove(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** The shelf goes; returns what was ready on it (the caller removes those), or null when there was none. */
    ConcurrentLinkedDeque<Pooled> remove(String key) {
        targets.remove(key);
        starting.remove(key);
        return ready.remove(key);
    }

    Collection<ConcurrentLinkedDeque<Pooled>> all() {
        return ready.values();
    }
}
