package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.NameShape;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Free-form labels on a sandbox (task, branch, run): at most {@value #MAX} pairs; keys and values short
 * and of a restricted charset, so they are safe in a URL query, a log line, a page and a SQL parameter.
 * Every refusal names the rule that was broken.
 */
public final class Labels {
    public static final int MAX = 16;
    /** Label keys are written like agent slugs. */
    public static final NameShape KEY = AgentSlug.SHAPE.as("label key");

    public static final Pattern VALUE = Pattern.compile("[A-Za-z0-9_.:/@+-]{0,128}");
    public static final String KEY_RULE =
            "a label key is 1-63 characters of a-z, 0-9, '_', '.', '-', starting with a letter or digit";
    public static final String VALUE_RULE = "a label value is 0-128 characters of A-Z, a-z, 0-9 and _ . : / @ + -";

    private Labels() {}

    /** Validates a JSON-decoded labels object; {@code field} names it in errors. Null is no labels. */
    public static Map<String, String> parse(String field, Object raw) {
        if (raw == null) {
            return Map.of();
        }
        if (!(raw instanceof Map<?, ?> map)) {
            throw new BadRequest("'" + field
                    + "' must be an object of string labels, e.g. {\"task\":\"T-7\",\"branch\":\"feat/x\"}");
        }
        if (map.size() > MAX) {
            throw new BadRequest("'" + field + "' has " + map.size() + " labels; at most " + MAX + " are allowed");
        }
        Map<String, String> labels = new TreeMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (!(e.getValue() instanceof String value)) {
                throw new BadRequest("'" + field + "." + Names.printable(key) + "' must be a string");
            }
            labels.put(requireKey(field, key), requireValue(field, key, value));
        }
        return labels;
    }

    /** One {@code key=value} filter, as in {@code GET /api/sandboxes?label=task=T-7}. */
    public static Map.Entry<String, String> parseFilter(String text) {
        int eq = text == null ? -1 : text.indexOf('=');
        if (eq < 0) {
            throw new BadRequest("label filter '" + Names.printable(text) + "' must be key=value, e.g. label=task=T-7");
        }
        String key = text.substring(0, eq);
        String value = text.substring(eq + 1);
        return Map.entry(requireKey("label", key), requireValue("label", key, value));
    }

    private static String requireKey(String field, String key) {
        if (!KEY.matches(key)) {
            throw new BadRequest(field + " key '" + Names.printable(key) + "' is not allowed: " + KEY_RULE);
        }
        return key;
    }

    private static String requireValue(String field, String key, String value) {
        if (!VALUE.matcher(value).matches()) {
            throw new BadRequest(field + " value of '" + key + "' is not allowed: " + VALUE_RULE);
        }
        return value;
    }
}
