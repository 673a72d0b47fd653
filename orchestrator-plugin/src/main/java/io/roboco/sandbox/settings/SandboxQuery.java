package io.roboco.sandbox.settings;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which sandbox records to list. Null or blank fields do not filter; every label given must match
 * exactly. {@code now} decides live versus expired.
 */
public record SandboxQuery(
        String owner,
        String project,
        Map<String, String> labels,
        Set<SandboxState> states,
        String instance,
        Instant now) {
    public SandboxQuery {
        labels = labels == null ? Map.of() : Map.copyOf(new TreeMap<>(labels));
        states = states == null || states.isEmpty() ? EnumSet.allOf(SandboxState.class) : Set.copyOf(states);
        Objects.requireNonNull(now, "now");
    }

    /** Live and expired records (those with containers) of one instance. */
    public static SandboxQuery undeletedOf(String instance, Instant now) {
        return new SandboxQuery(
                null, null, Map.of(), EnumSet.of(SandboxState.LIVE, SandboxState.EXPIRED), instance, now);
    }

    public boolean matches(SandboxRecord r) {
        return (blank(owner) || owner.equals(r.owner()))
                && (blank(project) || project.equals(r.project()))
                && (blank(instance) || instance.equals(r.instance()))
                && states.contains(r.state(now))
                && labels.entrySet().stream()
                        .allMatch(e -> e.getValue().equals(r.labels().get(e.getKey())));
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
