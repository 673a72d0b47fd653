package io.roboco.sandbox.server;

import io.roboco.sandbox.janitor.SweepReport;
import io.roboco.sandbox.provision.StartQueue;
import java.util.Map;

/** A started server: where it listens, and how to stop it (idempotent; tears down live sandboxes). */
public interface RunningServer extends AutoCloseable {
    /** The port on 127.0.0.1. */
    int port();

    /** The stable id of this installation, as labelled on its containers. */
    String instanceId();

    /**
     * Ready, unclaimed warm-pool containers per engine right now, and under {@code seeded} those of every seeded
     * project's pool (when {@code ROBOCO_SANDBOX_POOL_SEEDED} is set); empty when no pool is configured.
     */
    Map<String, Integer> poolIdle();

    /** The container-start admission every cold start and pool refill passes: in flight, waiting, peak, timed out. */
    StartQueue startQueue();

    /**
     * Runs one janitor sweep now, exactly as a tick does (logged; audited when it is the startup sweep or
     * removed or failed something), and returns its report. Waits for a tick that is running.
     */
    SweepReport sweepNow();

    /** One whole janitor tick now (heartbeat, expiry, audit retention, then the orphan sweep); the sweep's report. */
    SweepReport tickNow();

    @Override
    void close();
}
