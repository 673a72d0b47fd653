package io.roboco.sandbox.engine;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A schema snapshot: an explicit before-state of the agent's schemas, not refreshed truth. It records the digest
 * format version, the server's Postgres version, the schemas read, object counts per kind, and every object with
 * its fingerprint; {@link #digest()} is one hash over all of them (equal digests mean equal schemas, as far as the
 * recorded attributes go).
 *
 * @param formatVersion {@link #FORMAT_VERSION} when it was taken; a diff refuses to compare different formats
 * @param objects       by {@link SchemaObject#key()}, sorted
 */
public record SchemaDigest(
        int formatVersion,
        String postgresVersion,
        List<String> schemas,
        Map<String, Integer> counts,
        Map<String, SchemaObject> objects,
        String digest) {
    /** Bump when what is recorded (kinds, attributes, naming) changes. */
    public static final int FORMAT_VERSION = 1;

    public static final List<String> KINDS =
            List.of("extension", "table", "column", "constraint", "index", "view", "function", "sequence");

    public SchemaDigest {
        schemas = List.copyOf(schemas);
        counts = Map.copyOf(counts);
        objects = Collections.unmodifiableMap(new TreeMap<>(objects));
    }

    /** A digest of {@code objects}: counts and the overall hash computed here. */
    public static SchemaDigest of(String postgresVersion, List<String> schemas, List<SchemaObject> objects) {
        Map<String, SchemaObject> byKey = new TreeMap<>();
        for (SchemaObject o : objects) {
            if (byKey.putIfAbsent(o.key(), o) != null) {
                throw new IllegalStateException("two schema objects named " + o.key());
            }
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        KINDS.forEach(k -> counts.put(k, 0));
        byKey.values().forEach(o -> counts.merge(o.kind(), 1, Integer::sum));
        StringBuilder all = new StringBuilder("v").append(FORMAT_VERSION);
        byKey.values().forEach(o -> all.append('\n').append(o.key()).append(' ').append(o.fingerprint()));
        return new SchemaDigest(
                FORMAT_VERSION, postgresVersion, schemas, counts, byKey, SchemaObject.sha256(all.toString()));
    }
}
