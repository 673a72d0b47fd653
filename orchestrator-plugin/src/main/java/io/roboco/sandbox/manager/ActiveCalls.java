package io.roboco.sandbox.manager;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The provisioning calls under way, and the gate that stops new ones at shutdown: a call {@link #enter enters}
 * (refused once the gate is shut), does its work, and {@link #exit exits}; {@link #shutAndAwait} shuts the gate and
 * waits for those inside. A call counts itself before it looks at the gate, and the gate is shut before the count
 * is read, so no call slips past a shutdown that saw none inside.
 */
final class ActiveCalls {
    private int inside;
    private boolean shut;

    /** False (and nothing counted) once the gate is shut. */
    synchronized boolean enter() {
        if (shut) {
            return false;
        }
        inside++;
        return true;
    }

    synchronized void exit() {
        inside--;
        if (inside == 0) {
            notifyAll();
        }
    }

    /** Counts a call whatever the gate says (work a call already inside hands on). */
    synchronized void enterAnyway() {
        inside++;
    }

    /** Shuts the gate and waits up to {@code timeout} for the calls inside; returns how many are still inside. */
    synchronized int shutAndAwait(Duration timeout) throws InterruptedException {
        shut = true;
        return awaitNone(timeout);
    }

    /** Waits up to {@code timeout} until no call is inside; returns how many still are. */
    synchronized int awaitNone(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (inside > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return inside;
    }

    synchronized boolean shut() {
        return shut;
    }
}
