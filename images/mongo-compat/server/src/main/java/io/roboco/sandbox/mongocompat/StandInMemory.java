package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.QueryParameters;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** mongo-java-server's in-memory backend, with the direct collection access the stand-in's features need. */
final class StandInMemory extends MemoryBackend {
    Set<String> databaseNames() {
        return Set.copyOf(listDatabaseNames());
    }

    /** The collection {@code db.name}, if it exists (never creates the database). */
    Optional<MongoCollection<?>> collection(String db, String name) {
        if (!listDatabaseNames().contains(db)) {
            return Optional.empty();
        }
        return Optional.ofNullable(resolveDatabase(db).resolveCollection(name, false));
    }

    /** The collection {@code db.name}, created (with its _id index) when missing. */
    MongoCollection<?> collectionOrCreate(String db, String name) {
        MongoDatabase database = resolveDatabase(db);
        MongoCollection<?> collection = database.resolveCollection(name, false);
        return collection != null ? collection : database.createCollectionOrThrowIfExists(name);
    }

    /** The user collections of {@code db} (not {@code system.*}). */
    List<String> collectionNames(String db) {
        List<String> names = new ArrayList<>();
        collection(db, "system.namespaces").ifPresent(ns -> ns.queryAll().forEach(d -> {
            String name = String.valueOf(d.get("name")).substring(db.length() + 1);
            if (!name.startsWith("system.")) {
                names.add(name);
            }
        }));
        return names;
    }

    /** The index descriptions of {@code db.name} (as {@code system.indexes} holds them). */
    List<Document> indexes(String db, String name) {
        List<Document> out = new ArrayList<>();
        collection(db, "system.indexes").ifPresent(ix -> ix.handleQuery(new Document("ns", db + "." + name)).forEach(out::add));
        return out;
    }

    /** Documents of a collection matching {@code filter} (sorted by {@code sort} when given), at most {@code limit} (0: all). */
    static List<Document> find(MongoCollection<?> collection, Document filter, Document sort, int limit) {
        Document query = new Document("$query", filter);
        if (sort != null && !sort.isEmpty()) {
            query.put("$orderby", sort);
        }
        List<Document> out = new ArrayList<>();
        collection.handleQuery(new QueryParameters(query, 0, limit)).forEach(out::add);
        return out;
    }
}
