package io.roboco.sandbox.mongocompat.validation;

import de.bwaldvogel.mongo.backend.BsonType;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.roboco.sandbox.mongocompat.fidelity.StandIn;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * mongod's {@code $jsonSchema} (draft 4 with {@code bsonType}): the keywords mongod accepts, checked when the
 * validator is set (an unknown keyword fails there, as in mongod) and evaluated against each written document.
 * {@code encrypt} (client-side field level encryption) is refused by name.
 */
public final class JsonSchema {
    private static final Set<String> KEYWORDS = Set.of("bsonType", "type", "required", "properties",
            "additionalProperties", "patternProperties", "minProperties", "maxProperties", "enum", "minimum", "maximum",
            "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "items",
            "additionalItems", "minItems", "maxItems", "uniqueItems", "allOf", "anyOf", "oneOf", "not", "dependencies",
            "title", "description");

    private final Document schema;

    private JsonSchema(Document schema) {
        this.schema = schema;
    }

    /** Checks every keyword (recursively) the way mongod does when the validator is set. */
    public static JsonSchema compile(Object schema) {
        if (!(schema instanceof Document doc)) {
            throw failedToParse("$jsonSchema must be an object");
        }
        checkKeywords(doc);
        return new JsonSchema(doc);
    }

    private static void checkKeywords(Document schema) {
        for (Map.Entry<String, Object> e : schema.entrySet()) {
            String key = e.getKey();
            if (key.equals("encrypt") || key.equals("encryptMetadata")) {
                throw StandIn.refuse("$jsonSchema keyword '" + key + "' (client-side field level encryption)");
            }
            if (!KEYWORDS.contains(key)) {
                throw failedToParse("Unknown $jsonSchema keyword: " + key);
            }
            Object v = e.getValue();
            switch (key) {
                case "properties", "patternProperties" -> {
                    if (!(v instanceof Document props)) {
                        throw failedToParse("$jsonSchema keyword '" + key + "' must be an object");
                    }
                    for (Object sub : props.values()) {
                        checkKeywords(asSchema(sub, key));
                    }
                }
                case "items" -> {
                    if (v instanceof List<?> list) {
                        list.forEach(s -> checkKeywords(asSchema(s, key)));
                    } else {
                        checkKeywords(asSchema(v, key));
                    }
                }
                case "additionalProperties", "additionalItems" -> {
                    if (v instanceof Document sub) {
                        checkKeywords(sub);
                    } else if (!(v instanceof Boolean)) {
                        throw failedToParse("$jsonSchema keyword '" + key + "' must be a boolean or an object");
                    }
                }
                case "allOf", "anyOf", "oneOf" -> {
                    if (!(v instanceof List<?> list) || list.isEmpty()) {
                        throw failedToParse("$jsonSchema keyword '" + key + "' must be a non-empty array");
                    }
                    list.forEach(s -> checkKeywords(asSchema(s, key)));
                }
                case "not" -> checkKeywords(asSchema(v, key));
                case "bsonType", "type" -> typeNames(v).forEach(name -> typeMatcher(key, name));
                case "required" -> {
                    if (!(v instanceof List<?> list) || list.isEmpty() || !list.stream().allMatch(String.class::isInstance)) {
                        throw failedToParse("$jsonSchema keyword 'required' must be a non-empty array of strings");
                    }
                }
                case "pattern" -> Pattern.compile(String.valueOf(v));
                default -> {
                }
            }
        }
    }

    private static Document asSchema(Object value, String keyword) {
        if (value instanceof Document doc) {
            return doc;
        }
        throw failedToParse("$jsonSchema keyword '" + keyword + "' must hold schemas (objects)");
    }

    /** Why {@code document} fails the schema (the first rule it breaks, with its path), or empty when it passes. */
    public Optional<String> violation(Document document) {
        return check(schema, document, "");
    }

    private static Optional<String> check(Document schema, Object value, String path) {
        String at = path.isEmpty() ? "document" : "'" + path + "'";
        for (Map.Entry<String, Object> e : schema.entrySet()) {
            Object rule = e.getValue();
            Optional<String> failure = switch (e.getKey()) {
                case "bsonType", "type" -> typeNames(rule).stream().anyMatch(n -> typeMatcher(e.getKey(), n).test(value))
                        ? Optional.empty()
                        : Optional.of(at + " is not of " + e.getKey() + " " + rule);
                case "enum" -> rule instanceof List<?> values && values.stream().anyMatch(v -> same(v, value))
                        ? Optional.empty()
                        : Optional.of(at + " is not one of the enum values " + rule);
                case "allOf" -> firstFailure((List<?>) rule, value, path);
                case "anyOf" -> count((List<?>) rule, value, path) > 0 ? Optional.empty()
                        : Optional.of(at + " matches none of anyOf");
                case "oneOf" -> count((List<?>) rule, value, path) == 1 ? Optional.empty()
                        : Optional.of(at + " does not match exactly one of oneOf");
                case "not" -> check((Document) rule, value, path).isPresent() ? Optional.empty()
                        : Optional.of(at + " matches the 'not' schema");
                default -> value instanceof Document doc ? object(e.getKey(), rule, doc, schema, path)
                        : value instanceof List<?> list ? array(e.getKey(), rule, list, path)
                        : value instanceof Number n ? number(e.getKey(), rule, n, schema, at)
                        : value instanceof String s ? string(e.getKey(), rule, s, at)
                        : Optional.empty();
            };
            if (failure.isPresent()) {
                return failure;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> object(String keyword, Object rule, Document doc, Document schema, String path) {
        String at = path.isEmpty() ? "document" : "'" + path + "'";
        switch (keyword) {
            case "required" -> {
                for (Object field : (List<?>) rule) {
                    if (!doc.containsKey((String) field)) {
                        return Optional.of(at + " is missing required field '" + field + "'");
                    }
                }
            }
            case "properties" -> {
                for (Map.Entry<String, Object> p : ((Document) rule).entrySet()) {
                    if (doc.containsKey(p.getKey())) {
                        Optional<String> f = check((Document) p.getValue(), doc.get(p.getKey()), join(path, p.getKey()));
                        if (f.isPresent()) {
                            return f;
                        }
                    }
                }
            }
            case "patternProperties" -> {
                for (Map.Entry<String, Object> p : ((Document) rule).entrySet()) {
                    Pattern pattern = Pattern.compile(p.getKey());
                    for (String field : doc.keySet()) {
                        if (pattern.matcher(field).find()) {
                            Optional<String> f = check((Document) p.getValue(), doc.get(field), join(path, field));
                            if (f.isPresent()) {
                                return f;
                            }
                        }
                    }
                }
            }
            case "additionalProperties" -> {
                Set<String> declared = schema.get("properties") instanceof Document props ? props.keySet() : Set.of();
                List<Pattern> patterns = new ArrayList<>();
                if (schema.get("patternProperties") instanceof Document pp) {
                    pp.keySet().forEach(k -> patterns.add(Pattern.compile(k)));
                }
                for (String field : doc.keySet()) {
                    if (declared.contains(field) || patterns.stream().anyMatch(p -> p.matcher(field).find())) {
                        continue;
                    }
                    if (Boolean.FALSE.equals(rule)) {
                        return Optional.of(at + " has field '" + field + "', and additionalProperties is false");
                    }
                    if (rule instanceof Document sub) {
                        Optional<String> f = check(sub, doc.get(field), join(path, field));
                        if (f.isPresent()) {
                            return f;
                        }
                    }
                }
            }
            case "minProperties" -> {
                if (doc.size() < ((Number) rule).intValue()) {
                    return Optional.of(at + " has fewer than " + rule + " fields");
                }
            }
            case "maxProperties" -> {
                if (doc.size() > ((Number) rule).intValue()) {
                    return Optional.of(at + " has more than " + rule + " fields");
                }
            }
            case "dependencies" -> {
                for (Map.Entry<String, Object> d : ((Document) rule).entrySet()) {
                    if (!doc.containsKey(d.getKey())) {
                        continue;
                    }
                    if (d.getValue() instanceof List<?> fields) {
                        for (Object f : fields) {
                            if (!doc.containsKey((String) f)) {
                                return Optional.of(at + " has '" + d.getKey() + "' but not '" + f + "'");
                            }
                        }
                    } else if (d.getValue() instanceof Document sub) {
                        Optional<String> f = check(sub, doc, path);
                        if (f.isPresent()) {
                            return f;
                        }
                    }
                }
            }
            default -> {
            }
        }
        return Optional.empty();
    }

    private static Optional<String> array(String keyword, Object rule, List<?> list, String path) {
        String at = "'" + path + "'";
        switch (keyword) {
            case "minItems" -> {
                if (list.size() < ((Number) rule).intValue()) {
                    return Optional.of(at + " has fewer than " + rule + " items");
                }
            }
            case "maxItems" -> {
                if (list.size() > ((Number) rule).intValue()) {
                    return Optional.of(at + " has more than " + rule + " items");
                }
            }
            case "uniqueItems" -> {
                if (Boolean.TRUE.equals(rule) && new HashSet<>(list).size() != list.size()) {
                    return Optional.of(at + " has duplicate items");
                }
            }
            case "items" -> {
                for (int i = 0; i < list.size(); i++) {
                    Document itemSchema = rule instanceof List<?> schemas
                            ? (i < schemas.size() ? (Document) schemas.get(i) : null) : (Document) rule;
                    if (itemSchema != null) {
                        Optional<String> f = check(itemSchema, list.get(i), path + "." + i);
                        if (f.isPresent()) {
                            return f;
                        }
                    }
                }
            }
            default -> {
            }
        }
        return Optional.empty();
    }

    private static Optional<String> number(String keyword, Object rule, Number n, Document schema, String at) {
        BigDecimal value = decimal(n);
        switch (keyword) {
            case "minimum" -> {
                int c = value.compareTo(decimal((Number) rule));
                if (c < 0 || (c == 0 && Boolean.TRUE.equals(schema.get("exclusiveMinimum")))) {
                    return Optional.of(at + " is below the minimum " + rule);
                }
            }
            case "maximum" -> {
                int c = value.compareTo(decimal((Number) rule));
                if (c > 0 || (c == 0 && Boolean.TRUE.equals(schema.get("exclusiveMaximum")))) {
                    return Optional.of(at + " is above the maximum " + rule);
                }
            }
            case "multipleOf" -> {
                if (value.remainder(decimal((Number) rule)).signum() != 0) {
                    return Optional.of(at + " is not a multiple of " + rule);
                }
            }
            default -> {
            }
        }
        return Optional.empty();
    }

    private static Optional<String> string(String keyword, Object rule, String s, String at) {
        int length = s.codePointCount(0, s.length());
        return switch (keyword) {
            case "minLength" -> length < ((Number) rule).intValue() ? Optional.of(at + " is shorter than " + rule) : Optional.empty();
            case "maxLength" -> length > ((Number) rule).intValue() ? Optional.of(at + " is longer than " + rule) : Optional.empty();
            case "pattern" -> Pattern.compile(String.valueOf(rule)).matcher(s).find() ? Optional.empty()
                    : Optional.of(at + " does not match the pattern " + rule);
            default -> Optional.empty();
        };
    }

    private static Optional<String> firstFailure(List<?> schemas, Object value, String path) {
        for (Object s : schemas) {
            Optional<String> f = check((Document) s, value, path);
            if (f.isPresent()) {
                return f;
            }
        }
        return Optional.empty();
    }

    private static long count(List<?> schemas, Object value, String path) {
        return schemas.stream().filter(s -> check((Document) s, value, path).isEmpty()).count();
    }

    private static List<String> typeNames(Object rule) {
        if (rule instanceof String s) {
            return List.of(s);
        }
        if (rule instanceof List<?> list && !list.isEmpty() && list.stream().allMatch(String.class::isInstance)) {
            return list.stream().map(String.class::cast).toList();
        }
        throw failedToParse("$jsonSchema type must be a string or an array of strings");
    }

    private interface TypeTest {
        boolean test(Object value);
    }

    private static TypeTest typeMatcher(String keyword, String name) {
        if (keyword.equals("type")) {
            return switch (name) {
                case "object" -> v -> v instanceof Document;
                case "array" -> v -> v instanceof List<?>;
                case "number" -> v -> v instanceof Number;
                case "boolean" -> v -> v instanceof Boolean;
                case "string" -> v -> v instanceof String;
                case "null" -> Objects::isNull;
                default -> throw failedToParse("Unknown type name alias: " + name
                        + (name.equals("integer") ? " (mongod's $jsonSchema has no 'integer' type; use bsonType 'int' or 'long')" : ""));
            };
        }
        if (name.equals("number")) {
            return v -> v instanceof Number;
        }
        if (name.equals("regex")) {
            return v -> v instanceof BsonRegularExpression || v instanceof Pattern;
        }
        BsonType type;
        try {
            type = BsonType.forString(name);
        } catch (RuntimeException e) {
            throw failedToParse("Unknown type name alias: " + name);
        }
        return type == BsonType.NULL ? Objects::isNull : type::matches;
    }

    private static BigDecimal decimal(Number n) {
        return n instanceof Double || n instanceof Float ? BigDecimal.valueOf(n.doubleValue()) : new BigDecimal(n.toString());
    }

    private static boolean same(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return decimal(x).compareTo(decimal(y)) == 0;
        }
        return Objects.equals(a, b);
    }

    private static String join(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    static MongoServerError failedToParse(String message) {
        return new MongoServerError(9, "FailedToParse", message);
    }
}
