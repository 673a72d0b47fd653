package io.roboco.sandbox.engine.mongo;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.InsertManyOptions;
import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.UnknownNameException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.bson.RawBsonDocument;

/**
 * Mongo {@link Checkpoints}: the agent's database (the one its user may read and write) copied, collection by collection
 * through the driver as the admin, into a database of the same server its user has no role on ({@code <db>__ck_<name>}):
 * documents, the collection's options (validators) and its indexes. Plain driver commands ({@code listCollections},
 * {@code find}, {@code insert}, {@code createIndexes}, {@code drop}), so it works on {@code mongod} and on
 * the local stand-in alike.
 *
 * <p>A rewind first copies the agent's database as it is aside ({@code <db>__rewound}, its undo); the switch empties
 * the agent's database and copies the checkpoint in (a reader during those milliseconds may see it part-filled); an
 * undo does the same from the copy set aside. Same URL, user and password; open connections stay (Mongo has no
 * per-database connection to close).
 */
final class MongoCheckpoints implements Checkpoints {
    static final String SUFFIX = "__ck_";
    private static final String OLD = "__rewound";
    private static final int BATCH = 500;
    static final String MARKER = "__roboco_checkpoint";

    @Override
    public Result checkpoint(ProbeTarget target, String name) {
        CheckpointName.of(name);
        long t0 = System.nanoTime();
        String db = target.credentials().database();
        try (MongoClient admin = MongoSessions.open(target, Login.ADMIN)) {
            MongoDatabase checkpoint = admin.getDatabase(db + SUFFIX + name);
            checkpoint.drop();
            // the marker makes the checkpoint of an empty database exist too; copies skip it
            checkpoint.getCollection(MARKER).insertOne(new Document("checkpoint", name));
            long bytes = copy(admin, db, db + SUFFIX + name);
            return new Result(name, bytes, 0, millis(t0));
        }
    }

    @Override
    public Result rewind(ProbeTarget target, String name) throws Exception {
        try (PreparedRewind prepared = prepareRewind(target, name)) {
            Result result = prepared.commit();
            prepared.finish();
            return result;
        }
    }

    /**
     * Copies the agent's database as it is now aside ({@code <db>__rewound}, the undo) while nothing of it changes; the
     * switch then empties the agent's database and copies the checkpoint in, and an undo does the same from the copy
     * set aside. Copies, not {@code renameCollection}: the local stand-in cannot rename across databases.
     */
    @Override
    public PreparedRewind prepareRewind(ProbeTarget target, String name) {
        CheckpointName.of(name);
        long t0 = System.nanoTime();
        String db = target.credentials().database();
        MongoClient admin = MongoSessions.open(target, Login.ADMIN);
        try {
            if (!admin.listDatabaseNames().into(new ArrayList<>()).contains(db + SUFFIX + name)) {
                throw new UnknownNameException(
                        "no checkpoint '" + name + "' in this sandbox's mongo; there are: " + names(list(admin, db)));
            }
            admin.getDatabase(db + OLD).drop();
            copy(admin, db, db + OLD);
            return new Prepared(admin, name, db, t0);
        } catch (RuntimeException e) {
            admin.close();
            throw e;
        }
    }

    /** A Mongo rewind made ready: the agent's data as it was is copied aside in {@code <db>__rewound}. */
    private static final class Prepared implements PreparedRewind {
        private final MongoClient admin;
        private final String name;
        private final String db;
        private final long t0;

        Prepared(MongoClient admin, String name, String db, long t0) {
            this.admin = admin;
            this.name = name;
            this.db = db;
            this.t0 = t0;
        }

        @Override
        public Result commit() {
            long bytes;
            try {
                clear(admin, db);
                bytes = copy(admin, db + SUFFIX + name, db);
            } catch (RuntimeException e) {
                undo();
                throw e;
            }
            return new Result(name, bytes, 0, millis(t0));
        }

        @Override
        public void undo() {
            clear(admin, db);
            copy(admin, db + OLD, db);
        }

        @Override
        public void finish() {}

        @Override
        public void close() {
            try {
                admin.getDatabase(db + OLD).drop();
            } catch (RuntimeException e) {
                // stays in the sandbox's own server, out of the agent's reach, and goes with it
            } finally {
                admin.close();
            }
        }
    }

    /** Drops every collection of {@code db} (the database itself stays: its users are kept with it). */
    private static void clear(MongoClient admin, String db) {
        MongoDatabase database = admin.getDatabase(db);
        for (String collection : collections(database)) {
            if (!collection.startsWith("system.")) {
                database.getCollection(collection).drop();
            }
        }
    }

    @Override
    public void delete(ProbeTarget target, String name) {
        CheckpointName.of(name);
        try (MongoClient admin = MongoSessions.open(target, Login.ADMIN)) {
            admin.getDatabase(target.credentials().database() + SUFFIX + name).drop();
        }
    }

    @Override
    public List<Checkpoint> list(ProbeTarget target) {
        try (MongoClient admin = MongoSessions.open(target, Login.ADMIN)) {
            return list(admin, target.credentials().database());
        }
    }

    static List<Checkpoint> list(MongoClient admin, String db) {
        List<Checkpoint> out = new ArrayList<>();
        for (Document d : admin.listDatabases()) {
            String datname = d.getString("name");
            if (datname != null && datname.startsWith(db + SUFFIX)) {
                Object size = d.get("sizeOnDisk");
                out.add(new Checkpoint(
                        datname.substring(db.length() + SUFFIX.length()),
                        size instanceof Number n ? n.longValue() : 0L));
            }
        }
        out.sort((a, b) -> a.name().compareTo(b.name()));
        return out;
    }

    /** Copies every collection of {@code from} into {@code to}: options, documents, indexes. Returns the bytes copied. */
    static long copy(MongoClient admin, String from, String to) {
        MongoDatabase source = admin.getDatabase(from);
        MongoDatabase target = admin.getDatabase(to);
        long bytes = 0;
        for (Document info : source.listCollections()) {
            if (!"collection".equals(info.getString("type") == null ? "collection" : info.getString("type"))) {
                continue;
            }
            String name = info.getString("name");
            if (name.equals(MARKER) || name.startsWith("system.")) {
                continue;
            }
            Document create = new Document("create", name);
            Object options = info.get("options");
            if (options instanceof Document o) {
                create.putAll(o);
            }
            target.runCommand(create);
            MongoCollection<RawBsonDocument> into = target.getCollection(name, RawBsonDocument.class);
            List<RawBsonDocument> batch = new ArrayList<>(BATCH);
            try (MongoCursor<RawBsonDocument> cursor = source.getCollection(name, RawBsonDocument.class)
                    .find()
                    .batchSize(BATCH)
                    .iterator()) {
                while (cursor.hasNext()) {
                    RawBsonDocument doc = cursor.next();
                    bytes += doc.getByteBuffer().remaining();
                    batch.add(doc);
                    if (batch.size() == BATCH) {
                        into.insertMany(batch, new InsertManyOptions().bypassDocumentValidation(true));
                        batch.clear();
                    }
                }
            }
            if (!batch.isEmpty()) {
                into.insertMany(batch, new InsertManyOptions().bypassDocumentValidation(true));
            }
            List<Document> indexes = new ArrayList<>();
            for (Document index : source.getCollection(name).listIndexes()) {
                if (!"_id_".equals(index.getString("name"))) {
                    indexes.add(indexSpec(index));
                }
            }
            if (!indexes.isEmpty()) {
                target.runCommand(new Document("createIndexes", name).append("indexes", indexes));
            }
        }
        return bytes;
    }

    /** An index as {@code listIndexes} shows it, as {@code createIndexes} takes it (a text index by its fields). */
    private static Document indexSpec(Document listed) {
        Document spec = new Document(listed);
        spec.remove("v");
        spec.remove("ns");
        Document key = listed.get("key", Document.class);
        if (key != null && key.containsKey("_fts") && listed.get("weights") instanceof Document weights) {
            Document textKey = new Document();
            for (Map.Entry<String, Object> e : key.entrySet()) {
                if (e.getKey().equals("_fts")) {
                    weights.keySet().forEach(field -> textKey.append(field, "text"));
                } else if (!e.getKey().equals("_ftsx")) {
                    textKey.append(e.getKey(), e.getValue());
                }
            }
            spec.put("key", textKey);
        }
        return spec;
    }

    private static List<String> collections(MongoDatabase db) {
        return db.listCollectionNames().into(new ArrayList<>());
    }

    static String names(List<Checkpoint> checkpoints) {
        return checkpoints.isEmpty()
                ? "none"
                : String.join(", ", checkpoints.stream().map(Checkpoint::name).toList());
    }

    private static long millis(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
