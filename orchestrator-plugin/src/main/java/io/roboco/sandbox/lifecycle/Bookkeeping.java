package io.roboco.sandbox.lifecycle;

import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.manager.LiveSandboxes;
import io.roboco.sandbox.settings.SandboxStore;
import java.time.Clock;

/**
 * Opens the sandbox book over the registry of live sandboxes it shares with the manager (the builder's wiring, and the
 * tests'). Kept apart from {@link SandboxBook} so that the registry stays out of the embedding surface.
 */
public final class Bookkeeping {
    private Bookkeeping() {}

    /** The book of instance {@code instance}'s sandbox records, writing what it learns into {@code live}. */
    public static SandboxBook open(
            SandboxStore store,
            String instance,
            Lifetimes lifetimes,
            int perOwner,
            Capacity capacity,
            Clock clock,
            ContainerLedger ledger,
            LiveSandboxes live) {
        return new SandboxBook(store, instance, lifetimes, perOwner, capacity, clock, ledger, live);
    }
}
