package io.roboco.sandbox.inspect;

import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Inspection results as JSON: {@link #tree} turns records (keys in snake_case), maps and lists into plain
 * {@code Map}/{@code List}/{@code String}/{@code Number}/{@code Boolean}/null values any JSON library
 * serialises the same way (the MCP SDK's {@code structuredContent} takes such a tree); {@link #write}
 * serialises one directly, without a JSON library.
 */
public final class InspectJson {
    private InspectJson() {}

    /** {@code value} as a tree of maps, lists and scalars. */
    public static Object tree(Object value) {
        if (value == null
                || value instanceof String
                || value instanceof Boolean
                || value instanceof Long
                || value instanceof Integer
                || value instanceof BigDecimal) {
            return value;
        }
        if (value instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? d.toString() : d;
        }
        if (value instanceof Number n) {
            return n;
        }
        if (value instanceof Enum<?> e) {
            return e.name().toLowerCase(Locale.ROOT);
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            map.forEach((k, v) -> out.put(String.valueOf(k), tree(v)));
            return out;
        }
        if (value instanceof Collection<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            list.forEach(v -> out.add(tree(v)));
            return out;
        }
        if (value instanceof Record record) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (RecordComponent c : record.getClass().getRecordComponents()) {
                try {
                    out.put(snake(c.getName()), tree(c.getAccessor().invoke(record)));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(
                            "cannot read " + c.getName() + " of "
                                    + record.getClass().getSimpleName(),
                            e);
                }
            }
            return out;
        }
        return value.toString();
    }

    /** {@code value} as compact JSON text. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        append(out, tree(value));
        return out.toString();
    }

    private static void append(StringBuilder out, Object v) {
        if (v == null) {
            out.append("null");
        } else if (v instanceof String s) {
            string(out, s);
        } else if (v instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                string(out, (String) e.getKey());
                out.append(':');
                append(out, e.getValue());
            }
            out.append('}');
        } else if (v instanceof List<?> list) {
            out.append('[');
            for (int k = 0; k < list.size(); k++) {
                if (k > 0) {
                    out.append(',');
                }
                append(out, list.get(k));
            }
            out.append(']');
        } else if (v instanceof BigDecimal b) {
            out.append(b.toPlainString());
        } else {
            out.append(v);
        }
    }

    private static void string(StringBuilder out, String s) {
        out.append('"');
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029' || c == '<' || c == '>') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    static String snake(String camel) {
        StringBuilder out = new StringBuilder();
        for (char c : camel.toCharArray()) {
            if (Character.isUpperCase(c)) {
                out.append('_').append(Character.toLowerCase(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
