package io.roboco.sandbox.engine;

import java.time.Duration;

/** Polls a {@link ReadinessProbe} tightly, with a bounded total wait and no fixed sleeps beyond the poll gap. */
public final class Readiness {
    /** How often a failing probe also asks whether the container still runs. */
    static final Duration RUNNING_CHECK_GAP = Duration.ofMillis(200);

    private Readiness() {}

    /**
     * Polls {@code probe} until it passes, the container stops running, or {@code timeout} passes.
     *
     * @throws NotReadyException with the last probe error, whether the container exited, and its log tail
     */
    public static Duration await(ReadinessProbe probe, ProbeTarget target, Duration timeout, Duration pollGap)
            throws NotReadyException, InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        Exception last = null;
        long lastRunningCheck = start;
        while (true) {
            try {
                probe.check(target);
                return Duration.ofNanos(System.nanoTime() - start);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                last = e;
            }
            // Whether the container still runs is a daemon round trip: asked at most every RUNNING_CHECK_GAP, not
            // after every failed probe (20 sandboxes starting at once would otherwise flood the daemon with inspects).
            if (System.nanoTime() - lastRunningCheck >= RUNNING_CHECK_GAP.toNanos()) {
                lastRunningCheck = System.nanoTime();
                if (!target.running().getAsBoolean()) {
                    throw new NotReadyException(
                            NotReadyException.Cause.EXITED,
                            timeout,
                            describe(last),
                            target.logTail().get());
                }
            }
            if (System.nanoTime() > deadline) {
                throw new NotReadyException(
                        NotReadyException.Cause.TIMEOUT,
                        timeout,
                        describe(last),
                        target.logTail().get());
            }
            Thread.sleep(pollGap.toMillis(), (int) (pollGap.toNanosPart() % 1_000_000));
        }
    }

    private static String describe(Exception e) {
        if (e == null) {
            return "no probe attempt";
        }
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + firstLine(message));
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** A sandbox that did not become ready; the message carries the evidence. */
    public static final class NotReadyException extends Exception {
        public enum Cause {
            TIMEOUT,
            EXITED
        }

        private final Cause cause;
        private final String logTail;

        NotReadyException(Cause cause, Duration timeout, String lastProbeError, String logTail) {
            super((cause == Cause.TIMEOUT
                            ? "not ready in " + timeout.toMillis() + " ms"
                            : "container stopped before it was ready")
                    + "; last probe error: " + lastProbeError);
            this.cause = cause;
            this.logTail = logTail == null ? "" : logTail;
        }

        public Cause reason() {
            return cause;
        }

        public String logTail() {
            return logTail;
        }
    }
}
