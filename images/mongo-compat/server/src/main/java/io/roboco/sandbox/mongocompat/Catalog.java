package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.backend.DefaultQueryMatcher;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.List;

/** What the stand-in keeps per collection beside mongo-java-server's data (nothing yet), and listCollections' answer. */
final class Catalog {
    /**
     * mongod's {@code listCollections} on the backend's answer: the {@code filter} applied (the backend ignores it),
     * {@code nameOnly} honoured.
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
            if (!filter.isEmpty() && !matcher.matches(description, filter)) {
                continue;
            }
            out.add(nameOnly ? new Document("name", description.get("name")).append("type", description.get("type")) : description);
        }
        cursor.put("firstBatch", out);
        return reply;
    }
}
