package io.roboco.sandbox.engine;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One schema object as a snapshot saw it: its kind, its qualified name, what defines it (the attributes a diff
 * compares, e.g. a column's type and nullability) and a fingerprint over exactly those.
 *
 * @param kind        one of {@link SchemaDigest#KINDS}
 * @param name        qualified name: {@code schema.table}, {@code schema.table.column}, {@code schema.fn(args)}, …
 * @param attributes  what defines the object; absent values are left out
 * @param fingerprint first 16 hex digits of SHA-256 over kind, name and the sorted attributes
 */
public record SchemaObject(String kind, String name, Map<String, String> attributes, String fingerprint) {
    public SchemaObject {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        attributes = Map.copyOf(new TreeMap<>(attributes));
    }

    /** An object with its fingerprint computed from {@code attributes}. */
    public static SchemaObject of(String kind, String name, Map<String, String> attributes) {
        Map<String, String> present = new TreeMap<>();
        attributes.forEach((k, v) -> {
            if (v != null) {
                present.put(k, v);
            }
        });
        StringBuilder canonical = new StringBuilder(kind).append('\0').append(name);
        present.forEach((k, v) -> canonical.append('\0').append(k).append('=').append(v));
        return new SchemaObject(
                kind, name, present, sha256(canonical.toString()).substring(0, 16));
    }

    /** {@code kind name}: the key a diff matches objects by. */
    public String key() {
        return kind + " " + name;
    }

    static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }
}
