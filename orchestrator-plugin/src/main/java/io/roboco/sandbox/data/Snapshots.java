package io.roboco.sandbox.data;

import io.roboco.sandbox.engine.postgres.schema.SchemaDigest;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Named schema snapshots per sandbox key, in memory (they go with the process). The key is the sandbox's owner
 * key: today the agent slug of its verb sandbox; the lifecycle work's sandbox ids ({@code sbx_…}) key it the same
 * way. A sandbox keeps at most {@link #MAX_PER_SANDBOX}; saving a name again replaces it.
 */
final class Snapshots {
    static final int MAX_PER_SANDBOX = 32;

    record Snapshot(String name, Instant taken, SchemaDigest digest) {
    }

    private final Map<String, Map<String, Snapshot>> bySandbox = new ConcurrentHashMap<>();

    /** Saves the snapshot; false when the sandbox already holds the maximum and the name is new. */
    synchronized boolean save(String sandbox, Snapshot snapshot) {
        Map<String, Snapshot> named = bySandbox.computeIfAbsent(sandbox, k -> new LinkedHashMap<>());
        if (!named.containsKey(snapshot.name()) && named.size() >= MAX_PER_SANDBOX) {
            return false;
        }
        named.put(snapshot.name(), snapshot);
        return true;
    }

    synchronized Optional<Snapshot> find(String sandbox, String name) {
        return Optional.ofNullable(bySandbox.getOrDefault(sandbox, Map.of()).get(name));
    }

    synchronized List<String> names(String sandbox) {
        return List.copyOf(bySandbox.getOrDefault(sandbox, Map.of()).keySet());
    }

    /** The sandbox is gone for good: forget its snapshots. */
    synchronized void forget(String sandbox) {
        bySandbox.remove(sandbox);
    }
}
