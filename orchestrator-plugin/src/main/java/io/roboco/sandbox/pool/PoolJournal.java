package io.roboco.sandbox.pool;

import io.roboco.sandbox.provision.ServiceInstance;

/**
 * Told when a container joins the warm pool ready and idle, and when it leaves it (claimed or removed): what a
 * restarted server needs to take the idle ones back (re-adoption keeps their sealed admin credentials).
 */
public interface PoolJournal {
    /** {@code idle} is ready and idle in the pool kept under {@code poolKey}. */
    void pooled(String poolKey, ServiceInstance idle);

    /** The container is no longer idle in the pool. */
    void left(String containerId);

    /** Remembers nothing. */
    PoolJournal NONE = new PoolJournal() {
        @Override
        public void pooled(String poolKey, ServiceInstance idle) {}

        @Override
        public void left(String containerId) {}
    };
}
