package io.roboco.sandbox.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Which threads of this JVM are parked acquiring a lock inside a given method: how a test knows that a
 * call it fired has really reached (say) the agent lock in {@code SandboxManager.release} and waits
 * there, so a race it forces is a race, not a guess after a sleep.
 *
 * <p>A thread counts when it is WAITING (or TIMED_WAITING), every frame above its innermost frame of
 * project code ({@code io.roboco.}) belongs to {@code java.util.concurrent.locks} (or the JDK's park),
 * and its stack holds a frame of the named class and method. A thread waiting for a future
 * ({@code CompletableFuture.get}) or sleeping does not count.
 */
public final class LockWaiters {
    private LockWaiters() {}

    /** Threads now parked on a lock acquisition inside {@code className.method}. */
    public static List<Thread> inside(String className, String method) {
        List<Thread> waiting = new ArrayList<>();
        for (Map.Entry<Thread, StackTraceElement[]> e :
                Thread.getAllStackTraces().entrySet()) {
            Thread.State state = e.getKey().getState();
            if ((state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
                    && parkedOnLockIn(e.getValue(), className, method)) {
                waiting.add(e.getKey());
            }
        }
        return waiting;
    }

    /**
     * Waits until at least {@code count} threads are parked on a lock inside {@code className.method}, at
     * most {@code timeout}; returns how many there were, and fails (AssertionError) with what it saw when
     * they did not get there in time.
     */
    public static int await(String className, String method, int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int seen;
        while ((seen = inside(className, method).size()) < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(seen + " thread(s) parked on a lock inside " + simple(className) + "." + method
                        + " after " + timeout.toMillis() + " ms, expected " + count);
            }
            TimeUnit.MILLISECONDS.sleep(1);
        }
        return seen;
    }

    /**
     * Waits until a thread that is not in {@code before} is parked on a lock inside {@code className.method}, at
     * most {@code timeout}, and returns it: with {@code before} taken just before the test fired a call, that
     * thread is the call's (as long as nothing else fires such calls meanwhile). Fails (AssertionError) when none came.
     */
    public static Thread awaitNew(Collection<Thread> before, String className, String method, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (Thread t : inside(className, method)) {
                if (!before.contains(t)) {
                    return t;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no new thread parked on a lock inside " + simple(className) + "." + method
                        + " within " + timeout.toMillis() + " ms");
            }
            TimeUnit.MILLISECONDS.sleep(1);
        }
    }

    static boolean parkedOnLockIn(StackTraceElement[] stack, String className, String method) {
        int ours = -1;
        for (int i = 0; i < stack.length; i++) {
            if (stack[i].getClassName().startsWith("io.roboco.")) {
                ours = i;
                break;
            }
        }
        if (ours <= 0) {
            return false;
        }
        boolean sawLock = false;
        for (int i = 0; i < ours; i++) {
            String c = stack[i].getClassName();
            if (c.startsWith("java.util.concurrent.locks.")) {
                sawLock |= !c.equals("java.util.concurrent.locks.LockSupport");
            } else if (!c.startsWith("jdk.internal.misc.")) {
                return false;
            }
        }
        if (!sawLock) {
            return false;
        }
        for (int i = ours; i < stack.length; i++) {
            if (stack[i].getClassName().equals(className)
                    && stack[i].getMethodName().equals(method)) {
                return true;
            }
        }
        return false;
    }

    private static String simple(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}
