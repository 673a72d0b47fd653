package io.roboco.sandbox.manager;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One fair lock per agent slug: calls for the same agent are serialized, different agents never
 * wait on each other. Nothing but lock creation happens inside the map's compute function.
 */
final class AgentLocks {
    private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();

    ReentrantLock lockFor(String agent) {
        return locks.computeIfAbsent(agent, k -> new ReentrantLock(true));
    }
}
