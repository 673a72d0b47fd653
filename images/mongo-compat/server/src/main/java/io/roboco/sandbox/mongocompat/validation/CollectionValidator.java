package io.roboco.sandbox.mongocompat.validation;

import de.bwaldvogel.mongo.backend.DefaultQueryMatcher;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.roboco.sandbox.mongocompat.fidelity.Operators;
import io.roboco.sandbox.mongocompat.fidelity.StandIn;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A collection's document validation, as {@code create} / {@code collMod} set it: the {@code validator} (a
 * {@code $jsonSchema} and/or query operators), {@code validationLevel} ({@code strict}: every insert and update;
 * {@code moderate}: updates of documents that were valid; {@code off}) and {@code validationAction} ({@code error}:
 * refused with code 121; {@code warn}: written and logged).
 */
public record CollectionValidator(Document validator, JsonSchema schema, Document query, String level, String action) {
    public static final int DOCUMENT_VALIDATION_FAILURE = 121;

    /** The collection's validation after {@code create} or {@code collMod} with {@code body}; {@code previous} may be null. */
    public static CollectionValidator from(Document body, CollectionValidator previous) {
        Document validator = previous == null ? new Document() : previous.validator();
        if (body.containsKey("validator")) {
            if (!(body.get("validator") instanceof Document v)) {
                throw new MongoServerError(14, "TypeMismatch", "'validator' must be an object");
            }
            validator = v;
        }
        String level = string(body, "validationLevel", previous == null ? "strict" : previous.level(), List.of("off", "strict", "moderate"));
        String action = string(body, "validationAction", previous == null ? "error" : previous.action(), List.of("error", "warn", "errorAndLog"));
        JsonSchema schema = null;
        Document query = new Document();
        for (Map.Entry<String, Object> e : validator.entrySet()) {
            if (e.getKey().equals("$jsonSchema")) {
                schema = JsonSchema.compile(e.getValue());
            } else {
                if (containsKey(e.getValue(), "$jsonSchema")) {
                    throw StandIn.refuse("$jsonSchema nested inside " + e.getKey() + " in a validator",
                            "put $jsonSchema at the validator's top level");
                }
                if (Set.of("$where", "$near", "$nearSphere", "$text").contains(e.getKey())) {
                    throw new MongoServerError(2, "BadValue", e.getKey() + " is not allowed inside of a document validator");
                }
                query.put(e.getKey(), e.getValue());
            }
        }
        Operators.checkFilter(query, "validator", false);
        return new CollectionValidator(validator, schema, query, level, action);
    }

    /** Why {@code doc} fails this validator, or empty. */
    public Optional<String> violation(Document doc) {
        if (schema != null) {
            Optional<String> failure = schema.violation(doc);
            if (failure.isPresent()) {
                return failure;
            }
        }
        if (!query.isEmpty() && !new DefaultQueryMatcher().matches(doc, query)) {
            return Optional.of("document does not match the validator's query " + query.toString(true));
        }
        return Optional.empty();
    }

    public boolean isOff() {
        return level.equals("off") || validator.isEmpty();
    }

    public boolean warnOnly() {
        return action.equals("warn");
    }

    /** mongod's {@code listCollections} options for this collection. */
    public Document options() {
        return new Document("validator", validator).append("validationLevel", level).append("validationAction", action);
    }

    /** The write error for {@code doc} failing validation with {@code reason}. */
    public static MongoServerError failure(Object id, String reason) {
        MongoServerError error = new MongoServerError(DOCUMENT_VALIDATION_FAILURE, "DocumentValidationFailure", "Document failed validation");
        return new ValidationFailure(error, id, reason);
    }

    /** A validation failure that carries mongod's {@code errInfo}. */
    public static final class ValidationFailure extends MongoServerError {
        private static final long serialVersionUID = 1L;
        private final transient Document errInfo;

        ValidationFailure(MongoServerError base, Object id, String reason) {
            super(base.getCode(), base.getCodeName(), base.getMessageWithoutErrorCode());
            this.errInfo = new Document("failingDocumentId", id)
                    .append("details", new Document("operatorName", "$jsonSchema").append("reason", reason));
        }

        public Document errInfo() {
            return errInfo;
        }
    }

    private static String string(Document body, String key, String fallback, List<String> allowed) {
        Object v = body.get(key);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof String s) || !allowed.contains(s)) {
            throw new MongoServerError(2, "BadValue", "Enumeration value '" + v + "' for field '" + key + "' is not a valid value.");
        }
        return s;
    }

    private static boolean containsKey(Object node, String key) {
        if (node instanceof Document d) {
            return d.containsKey(key) || d.values().stream().anyMatch(v -> containsKey(v, key));
        }
        if (node instanceof List<?> list) {
            return list.stream().anyMatch(v -> containsKey(v, key));
        }
        return false;
    }
}
