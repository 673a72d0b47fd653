package io.roboco.sandbox.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What changed between a snapshot and a later digest: objects added, removed, and changed with the attributes that
 * differ (e.g. a column's {@code type} or {@code nullable}). Empty when the schemas are the same.
 */
public record SchemaDiff(List<ObjectRef> added, List<ObjectRef> removed, List<Change> changed) {
    public SchemaDiff {
        added = List.copyOf(added);
        removed = List.copyOf(removed);
        changed = List.copyOf(changed);
    }

    /** An object by kind and qualified name. */
    public record ObjectRef(String kind, String name) {}

    /** One attribute's values before and after; null when absent on that side. */
    public record Values(String before, String after) {}

    public record Change(String kind, String name, Map<String, Values> attributes) {
        public Change {
            attributes = Collections.unmodifiableMap(new TreeMap<>(attributes));
        }
    }

    public boolean isEmpty() {
        return added.isEmpty() && removed.isEmpty() && changed.isEmpty();
    }

    /**
     * The diff from {@code before} to {@code after}.
     *
     * @throws IllegalArgumentException when the two were recorded in different digest formats
     */
    public static SchemaDiff between(SchemaDigest before, SchemaDigest after) {
        if (before.formatVersion() != after.formatVersion()) {
            throw new IllegalArgumentException("snapshot digest format " + before.formatVersion()
                    + " cannot be compared with format " + after.formatVersion() + "; take a new snapshot");
        }
        List<ObjectRef> added = new ArrayList<>();
        List<ObjectRef> removed = new ArrayList<>();
        List<Change> changed = new ArrayList<>();
        for (SchemaObject now : after.objects().values()) {
            SchemaObject then = before.objects().get(now.key());
            if (then == null) {
                added.add(new ObjectRef(now.kind(), now.name()));
            } else if (!then.fingerprint().equals(now.fingerprint())) {
                changed.add(new Change(now.kind(), now.name(), differences(then.attributes(), now.attributes())));
            }
        }
        for (SchemaObject then : before.objects().values()) {
            if (!after.objects().containsKey(then.key())) {
                removed.add(new ObjectRef(then.kind(), then.name()));
            }
        }
        return new SchemaDiff(added, removed, changed);
    }

    private static Map<String, Values> differences(Map<String, String> before, Map<String, String> after) {
        Set<String> keys = new TreeSet<>(before.keySet());
        keys.addAll(after.keySet());
        Map<String, Values> out = new TreeMap<>();
        for (String k : keys) {
            if (!Objects.equals(before.get(k), after.get(k))) {
                out.put(k, new Values(before.get(k), after.get(k)));
            }
        }
        return out;
    }
}
