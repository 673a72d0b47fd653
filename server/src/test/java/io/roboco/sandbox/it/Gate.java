package io.roboco.sandbox.it;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A one-shot parking point at a seam (the recording runtime, a gated engine): the first call that matches
 * waits there until the test {@linkplain #open() opens} it, so the test can act while that call is known
 * to be inside (say) provisioning. A call parks at most {@link #MAX_PARK}, then goes on and the gate
 * {@linkplain #overstayed() says so}: a forgotten gate cannot hang a suite.
 */
public final class Gate {
    public static final Duration MAX_PARK = Duration.ofSeconds(60);
    private final String what;
    private final CountDownLatch parked = new CountDownLatch(1);
    private final CountDownLatch opened = new CountDownLatch(1);
    private volatile boolean overstayed;

    Gate(String what) {
        this.what = what;
    }

    /** Called by the seam, on the thread of the call that parks. */
    void park() {
        parked.countDown();
        try {
            overstayed = !opened.await(MAX_PARK.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until a call is parked here; fails (AssertionError naming the gate) when none came within {@code timeout}. */
    public void awaitParked(Duration timeout) throws InterruptedException {
        if (!parked.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("no call reached the gate '" + what + "' within " + timeout.toMillis() + " ms");
        }
    }

    /** Lets the parked call (or the next one to arrive) go on. */
    public void open() {
        opened.countDown();
    }

    /** True when the parked call gave up waiting after {@link #MAX_PARK}: the test never opened the gate in time. */
    public boolean overstayed() {
        return overstayed;
    }

    @Override
    public String toString() {
        return "gate '" + what + "'";
    }
}
