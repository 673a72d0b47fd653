package io.roboco.sandbox.janitor;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one sweep saw and did. {@code kept} carries a reason per container, so a test or an
 * operator can tell why something stayed; {@code removed} and {@code failed} say whose container it was.
 */
public record SweepReport(
        Instant started,
        boolean startup,
        int found,
        List<Removal> removed,
        List<Kept> kept,
        List<Removal> failed,
        String error) {
    public SweepReport {
        removed = List.copyOf(removed);
        kept = List.copyOf(kept);
        failed = List.copyOf(failed);
    }

    /** A container the sweep removed (or failed to remove), with its owner from the labels. */
    public record Removal(
            String containerId, String name, String agent, String project, String service, String detail) {}

    public record Kept(String containerId, String reason) {
        /** The reason without its particulars: "inside the grace window (age 3s < 120s)" → "inside the grace window". */
        public String category() {
            int paren = reason.indexOf(" (");
            return paren < 0 ? reason : reason.substring(0, paren);
        }
    }

    public static SweepReport crashed(Instant started, boolean startup, String error) {
        return new SweepReport(started, startup, 0, List.of(), List.of(), List.of(), error);
    }

    public boolean ok() {
        return error == null && failed.isEmpty();
    }

    /** Ids of the removed containers. */
    public List<String> removedIds() {
        return removed.stream().map(Removal::containerId).toList();
    }

    /** One line for the log and the audit trail: counts, and why things were kept. Never a credential. */
    public String summary() {
        String prefix = startup ? "startup sweep: " : "";
        if (error != null) {
            return prefix + "sweep failed: " + error + " (will run again next tick)";
        }
        StringBuilder sb = new StringBuilder(prefix)
                .append("found ")
                .append(found)
                .append(", removed ")
                .append(removed.size())
                .append(", kept ")
                .append(kept.size());
        if (!kept.isEmpty()) {
            Map<String, Integer> why = new TreeMap<>();
            kept.forEach(k -> why.merge(k.category(), 1, Integer::sum));
            sb.append(" (");
            why.forEach((reason, n) -> sb.append(reason).append(": ").append(n).append(", "));
            sb.setLength(sb.length() - 2);
            sb.append(')');
        }
        if (!failed.isEmpty()) {
            sb.append(", failed to remove ").append(failed.size()).append(" (will retry next tick)");
        }
        return sb.toString();
    }
}
