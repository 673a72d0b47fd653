package io.roboco.sandbox.janitor;

import java.time.Instant;
import java.util.List;

/**
 * What one sweep saw and did. {@code kept} carries a reason per container, so a test or an
 * operator can tell why something stayed.
 */
public record SweepReport(Instant started, int found, List<String> removed, List<Kept> kept, List<String> failed, String error) {
    public SweepReport {
        removed = List.copyOf(removed);
        kept = List.copyOf(kept);
        failed = List.copyOf(failed);
    }

    public record Kept(String containerId, String reason) {
    }

    public static SweepReport crashed(Instant started, String error) {
        return new SweepReport(started, 0, List.of(), List.of(), List.of(), error);
    }

    public boolean ok() {
        return error == null && failed.isEmpty();
    }

    /** One line for the log and the audit trail. */
    public String summary() {
        if (error != null) {
            return "sweep failed: " + error;
        }
        return "found " + found + ", removed " + removed.size() + ", kept " + kept.size()
                + (failed.isEmpty() ? "" : ", failed to remove " + failed.size());
    }
}
