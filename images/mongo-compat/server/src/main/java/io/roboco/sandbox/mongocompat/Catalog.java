package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.backend.DefaultQueryMatcher;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.roboco.sandbox.mongocompat.text.TextIndex;
import io.roboco.sandbox.mongocompat.validation.CollectionValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the stand-in keeps per collection beside mongo-java-server's data: its validator and its text index, by
 * namespace ({@code db.collection}); kept in step with drop, dropDatabase, renameCollection and dropIndexes.
 */
final class Catalog {
    private final Map<String, CollectionValidator> validators = new ConcurrentHashMap<>();
    private final Map<String, TextIndex> textIndexes = new ConcurrentHashMap<>();

    Catalog copy() {
        Catalog copy = new Catalog();
        copy.validators.putAll(validators);
        copy.textIndexes.putAll(textIndexes);
        return copy;
    }

    CollectionValidator validator(String ns) {
        return validators.get(ns);
    }

    void setValidator(String ns, CollectionValidator validator) {
        validators.put(ns, validator);
    }

    TextIndex textIndex(String ns) {
        return textIndexes.get(ns);
    }

    void setTextIndex(String ns, TextIndex index) {
        textIndexes.put(ns, index);
    }

    /** mongod allows one text index per collection; the same one again is a no-op. */
    void checkTextIndex(String ns, TextIndex index) {
        TextIndex existing = textIndexes.get(ns);
        if (existing != null && !String.valueOf(existing.name()).equals(String.valueOf(index.name()))) {
            throw oneTextIndexOnly(ns, existing.name());
        }
    }

    MongoServerError oneTextIndexOnly(String ns, String existing) {
        return new MongoServerError(85, "IndexOptionsConflict",
                "only one text index per collection allowed, found existing text index \"" + existing + "\" on " + ns);
    }

    void dropIndex(String ns, Object index) {
        TextIndex text = textIndexes.get(ns);
        if (text == null) {
            return;
        }
        boolean byName = index instanceof String name && (name.equals("*") || name.equals(text.name()));
        boolean byKey = index instanceof Document key && key.containsValue("text");
        boolean someByName = index instanceof List<?> names && names.contains(text.name());
        if (byName || byKey || someByName) {
            textIndexes.remove(ns);
        }
    }

    void drop(String ns) {
        validators.remove(ns);
        textIndexes.remove(ns);
    }

    void dropDatabase(String db) {
        validators.keySet().removeIf(ns -> ns.startsWith(db + "."));
        textIndexes.keySet().removeIf(ns -> ns.startsWith(db + "."));
    }

    void rename(String from, String to) {
        drop(to);
        CollectionValidator v = validators.remove(from);
        if (v != null) {
            validators.put(to, v);
        }
        TextIndex t = textIndexes.remove(from);
        if (t != null) {
            textIndexes.put(to, t);
        }
    }

    /**
     * mongod's {@code listCollections} on the backend's answer: each collection's options (its validator), the
     * {@code filter} applied (the backend ignores it), {@code nameOnly} honoured.
     */
    static Document listCollections(Document reply, String db, Document body, Catalog catalog) {
        if (!(reply.get("cursor") instanceof Document cursor) || !(cursor.get("firstBatch") instanceof List<?> batch)) {
            return reply;
        }
        Document filter = body.get("filter") instanceof Document f ? f : new Document();
        boolean nameOnly = Utils.isTrue(body.get("nameOnly"));
        DefaultQueryMatcher matcher = new DefaultQueryMatcher();
        List<Document> out = new ArrayList<>();
        for (Object item : batch) {
            Document description = (Document) item;
            CollectionValidator validator = catalog.validator(db + "." + description.get("name"));
            if (validator != null) {
                description.put("options", validator.options());
            }
            if (!filter.isEmpty() && !matcher.matches(description, filter)) {
                continue;
            }
            out.add(nameOnly ? new Document("name", description.get("name")).append("type", description.get("type")) : description);
        }
        cursor.put("firstBatch", out);
        return reply;
    }
}
