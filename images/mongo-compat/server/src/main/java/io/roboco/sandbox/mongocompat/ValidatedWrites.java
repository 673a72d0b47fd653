package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.netty.channel.Channel;
import io.roboco.sandbox.mongocompat.validation.CollectionValidator;
import io.roboco.sandbox.mongocompat.validation.CollectionValidator.ValidationFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Inserts, updates and findAndModify on a collection with a validator: an insert is checked before it is written;
 * an update statement is applied, its results checked, and the statement undone when one fails (code 121, with
 * {@code errInfo}), as mongod refuses it. {@code validationLevel: moderate} skips documents that were invalid before;
 * {@code validationAction: warn} writes and logs; {@code bypassDocumentValidation} skips the check. Collections
 * without a validator go straight to the backend.
 */
final class ValidatedWrites {
    private static final Logger LOG = LoggerFactory.getLogger(ValidatedWrites.class);

    private final StandInMemory memory;
    private final Catalog catalog;

    ValidatedWrites(StandInMemory memory, Catalog catalog) {
        this.memory = memory;
        this.catalog = catalog;
    }

    private CollectionValidator active(String db, String command, Document body) {
        CollectionValidator v = catalog.validator(db + "." + body.get(command));
        return v == null || v.isOff() || Utils.isTrue(body.get("bypassDocumentValidation")) ? null : v;
    }

    Document insert(Channel channel, String db, String command, Document body) {
        CollectionValidator validator = active(db, command, body);
        if (validator == null) {
            return memory.handleCommand(channel, db, command, body);
        }
        String collection = String.valueOf(body.get(command));
        List<?> documents = body.get("documents") instanceof List<?> list ? list : List.of();
        boolean ordered = !body.containsKey("ordered") || Utils.isTrue(body.get("ordered"));
        List<Document> writeErrors = new ArrayList<>();
        int n = 0;
        for (int i = 0; i < documents.size(); i++) {
            Document doc = (Document) documents.get(i);
            Optional<String> why = validator.violation(doc);
            if (why.isPresent() && !validator.warnOnly()) {
                writeErrors.add(writeError(i, CollectionValidator.failure(doc.get("_id"), why.get())));
                if (ordered) {
                    break;
                }
                continue;
            }
            why.ifPresent(reason -> warn(db, collection, reason));
            Document reply = memory.handleCommand(channel, db, "insert",
                    new Document("insert", collection).append("documents", List.of(doc)).append("ordered", true));
            if (reply.get("writeErrors") instanceof List<?> errors && !errors.isEmpty()) {
                Document error = new Document((Document) errors.get(0));
                error.put("index", i);
                writeErrors.add(error);
                if (ordered) {
                    break;
                }
            } else {
                n++;
            }
        }
        return result(n, writeErrors);
    }

    Document update(Channel channel, String db, String command, Document body) {
        CollectionValidator validator = active(db, command, body);
        if (validator == null) {
            return memory.handleCommand(channel, db, command, body);
        }
        String collection = String.valueOf(body.get(command));
        List<?> updates = body.get("updates") instanceof List<?> list ? list : List.of();
        boolean ordered = !body.containsKey("ordered") || Utils.isTrue(body.get("ordered"));
        int matched = 0;
        int modified = 0;
        List<Document> upserted = new ArrayList<>();
        List<Document> writeErrors = new ArrayList<>();
        for (int i = 0; i < updates.size(); i++) {
            Document statement = (Document) updates.get(i);
            Document filter = statement.get("q") instanceof Document q ? q : new Document();
            boolean multi = Utils.isTrue(statement.get("multi"));
            Map<Object, Document> before = snapshot(db, collection, filter, null, multi ? 0 : 1);
            Document reply = memory.handleCommand(channel, db, "update",
                    new Document("update", collection).append("updates", List.of(statement)).append("ordered", true));
            if (reply.get("writeErrors") instanceof List<?> errors && !errors.isEmpty()) {
                Document error = new Document((Document) errors.get(0));
                error.put("index", i);
                writeErrors.add(error);
                if (ordered) {
                    break;
                }
                continue;
            }
            Object upsertedId = reply.get("upserted") instanceof List<?> ups && !ups.isEmpty() ? ((Document) ups.get(0)).get("_id") : null;
            Optional<MongoServerError> failure = check(validator, db, collection, before, upsertedId);
            if (failure.isPresent()) {
                writeErrors.add(writeError(i, failure.get()));
                if (ordered) {
                    break;
                }
                continue;
            }
            int n = ((Number) reply.getOrDefault("n", 0)).intValue();
            if (upsertedId != null) {
                upserted.add(new Document("index", i).append("_id", upsertedId));
                n--;
            }
            matched += n;
            modified += ((Number) reply.getOrDefault("nModified", 0)).intValue();
        }
        Document result = new Document("n", matched + upserted.size()).append("nModified", modified);
        if (!upserted.isEmpty()) {
            result.put("upserted", upserted);
        }
        if (!writeErrors.isEmpty()) {
            result.put("writeErrors", writeErrors);
        }
        Utils.markOkay(result);
        return result;
    }

    Document findAndModify(Channel channel, String db, String command, Document body) {
        CollectionValidator validator = active(db, command, body);
        if (validator == null || Utils.isTrue(body.get("remove"))) {
            return memory.handleCommand(channel, db, command, body);
        }
        String collection = String.valueOf(body.get(command));
        Document filter = body.get("query") instanceof Document q ? q : new Document();
        Document sort = body.get("sort") instanceof Document s ? s : null;
        Map<Object, Document> before = snapshot(db, collection, filter, sort, 1);
        Document reply = memory.handleCommand(channel, db, command, body);
        if (!Utils.isTrue(reply.get("ok"))) {
            return reply;
        }
        Object upsertedId = reply.get("lastErrorObject") instanceof Document last ? last.get("upserted") : null;
        Optional<MongoServerError> failure = check(validator, db, collection, before, upsertedId);
        if (failure.isPresent()) {
            throw failure.get();
        }
        return reply;
    }

    /** Checks the written documents; on a failure restores {@code before}, removes an upsert, and returns the error. */
    private Optional<MongoServerError> check(CollectionValidator validator, String db, String collection,
            Map<Object, Document> before, Object upsertedId) {
        MongoCollection<?> coll = memory.collection(db, collection).orElse(null);
        if (coll == null) {
            return Optional.empty();
        }
        List<Object> ids = new ArrayList<>(before.keySet());
        if (upsertedId != null) {
            ids.add(upsertedId);
        }
        for (Object id : ids) {
            Document was = before.get(id);
            if (validator.level().equals("moderate") && was != null && validator.violation(was).isPresent()) {
                continue;
            }
            List<Document> now = StandInMemory.find(coll, new Document("_id", id), null, 1);
            if (now.isEmpty()) {
                continue;
            }
            Optional<String> why = validator.violation(now.get(0));
            if (why.isPresent()) {
                if (validator.warnOnly()) {
                    warn(db, collection, why.get());
                    continue;
                }
                restore(coll, before, upsertedId);
                return Optional.of(CollectionValidator.failure(id, why.get()));
            }
        }
        return Optional.empty();
    }

    private static void restore(MongoCollection<?> coll, Map<Object, Document> before, Object upsertedId) {
        if (upsertedId != null) {
            coll.deleteDocuments(new Document("_id", upsertedId), 1);
        }
        for (Map.Entry<Object, Document> e : before.entrySet()) {
            coll.deleteDocuments(new Document("_id", e.getKey()), 1);
            coll.insertDocuments(List.of(e.getValue()), true);
        }
    }

    private Map<Object, Document> snapshot(String db, String collection, Document filter, Document sort, int limit) {
        Map<Object, Document> out = new LinkedHashMap<>();
        memory.collection(db, collection).ifPresent(coll -> StandInMemory.find(coll, filter, sort, limit)
                .forEach(d -> out.put(d.get("_id"), d.cloneDeeply())));
        return out;
    }

    private static void warn(String db, String collection, String reason) {
        LOG.warn("Document would fail validation (validationAction: warn) in {}.{}: {}", db, collection, reason);
    }

    private static Document result(int n, List<Document> writeErrors) {
        Document result = new Document("n", n);
        if (!writeErrors.isEmpty()) {
            result.put("writeErrors", writeErrors);
        }
        Utils.markOkay(result);
        return result;
    }

    static Document writeError(int index, MongoServerError e) {
        Document error = new Document("index", index).append("code", e.getCode());
        error.putIfNotNull("codeName", e.getCodeName());
        error.put("errmsg", e.getMessageWithoutErrorCode());
        if (e instanceof ValidationFailure failure) {
            error.put("errInfo", failure.errInfo());
        }
        return error;
    }
}
