package io.roboco.sandbox.runtime.kubernetes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Our labels on a pod. Kubernetes is stricter than Docker about label values (at most 63 letters, digits, '-', '_',
 * '.', starting and ending alphanumeric), while ours may carry ':' or '@' (an owner {@code job:nightly}); such a
 * value is put on the pod as {@code h<40 hex digits of its SHA-256>}, the same for the same value, so a selector still
 * finds it. The labels as given are kept whole in the annotation {@value #ORIGINAL}, which is what the runtime reads
 * back. Keys are ours ({@code roboco.sandbox.*}) and valid as they are.
 */
final class PodLabels {
    /** The annotation with every label as the caller gave it (JSON). */
    static final String ORIGINAL = "roboco.sandbox/labels";
    /** The label that names the pod itself, which its NetworkPolicy selects. */
    static final String POD = "roboco.sandbox.pod";

    private static final Pattern VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?");
    private static final Pattern KEY =
            Pattern.compile("([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, String>> MAP = new TypeReference<>() {};

    private PodLabels() {}

    /** The labels as given, for {@value #ORIGINAL}. */
    static String original(Map<String, String> labels) {
        try {
            return JSON.writeValueAsString(new TreeMap<>(labels));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("labels not writable as JSON", e);
        }
    }

    /** {@value #ORIGINAL} read back. */
    static Map<String, String> original(String json) throws JsonProcessingException {
        return JSON.readValue(json, MAP);
    }

    /** The labels to put on the pod. */
    static Map<String, String> encode(Map<String, String> labels) {
        Map<String, String> out = new LinkedHashMap<>();
        labels.forEach((k, v) -> out.put(requireKey(k), value(v)));
        return out;
    }

    /** A label value as it appears on the pod (and in a selector). */
    static String value(String value) {
        if (VALUE.matcher(value).matches()) {
            return value;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return "h" + HexFormat.of().formatHex(digest).substring(0, 40);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    private static String requireKey(String key) {
        if (!KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("label key '" + key + "' is not a valid Kubernetes label key");
        }
        return key;
    }
}
