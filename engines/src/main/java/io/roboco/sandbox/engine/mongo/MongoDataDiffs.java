package io.roboco.sandbox.engine.mongo;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.engine.DataDiff;
import io.roboco.sandbox.engine.DataDiffs;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.UnknownNameException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.RawBsonDocument;

/**
 * Mongo {@link DataDiffs}: the agent's database now against a checkpoint's copy ({@link MongoCheckpoints}), collection by
 * collection, documents matched by {@code _id}, read as the admin. The checkpoint's side is held as {@code _id} → a
 * digest of the document's bytes while the agent's side streams past it: an {@code _id} only now is an insert, only then
 * a delete, on both with other bytes an update (a document whose fields were only reordered counts as updated).
 */
final class MongoDataDiffs implements DataDiffs {
    private static final int BATCH = 500;

    @Override
    public DataDiff diff(ProbeTarget target, String checkpoint, Limits limits) {
        CheckpointName.of(checkpoint);
        String db = target.credentials().database();
        String copy = db + MongoCheckpoints.SUFFIX + checkpoint;
        try (MongoClient admin = MongoSessions.open(target, Login.ADMIN)) {
            if (!admin.listDatabaseNames().into(new ArrayList<>()).contains(copy)) {
                throw new UnknownNameException("no checkpoint '" + checkpoint + "' in this sandbox's mongo; there are: "
                        + MongoCheckpoints.names(MongoCheckpoints.list(admin, db)));
            }
            return diff(admin.getDatabase(copy), admin.getDatabase(db), limits);
        }
    }

    static DataDiff diff(MongoDatabase then, MongoDatabase now, Limits limits) {
        List<String> before = collections(then);
        List<String> after = collections(now);
        TreeSet<String> names = new TreeSet<>(before);
        names.addAll(after);
        DataDiff.Builder out = new DataDiff.Builder(limits);
        for (String name : names) {
            boolean inThen = before.contains(name);
            boolean inNow = after.contains(name);
            DataDiff.Status status =
                    !inThen ? DataDiff.Status.ADDED : !inNow ? DataDiff.Status.REMOVED : DataDiff.Status.CHANGED;
            DataDiff.Tally tally = new DataDiff.Tally(limits);
            Map<BsonValue, byte[]> old = inThen ? digests(then, name) : new HashMap<>();
            Map<String, BsonValue> ids = new HashMap<>();
            if (inNow) {
                try (MongoCursor<RawBsonDocument> cursor = now.getCollection(name, RawBsonDocument.class)
                        .find()
                        .batchSize(BATCH)
                        .iterator()) {
                    while (cursor.hasNext()) {
                        RawBsonDocument doc = cursor.next();
                        BsonValue id = doc.get("_id");
                        String key = key(id);
                        byte[] was = old.remove(id);
                        if (was == null) {
                            if (tally.inserted(key)) {
                                ids.put(key, id);
                            }
                        } else if (!Arrays.equals(was, digest(doc))) {
                            if (tally.updated(key)) {
                                ids.put(key, id);
                            }
                        } else {
                            tally.same();
                        }
                    }
                }
            }
            for (BsonValue id : old.keySet()) {
                String key = key(id);
                if (tally.deleted(key)) {
                    ids.put(key, id);
                }
            }
            if (!tally.changed() && status == DataDiff.Status.CHANGED) {
                out.unchanged();
                continue;
            }
            if (!out.listing()) {
                out.unlisted();
                continue;
            }
            List<DataDiff.Sample> inserted = new ArrayList<>();
            List<DataDiff.Sample> updated = new ArrayList<>();
            List<DataDiff.Sample> deleted = new ArrayList<>();
            for (String k : tally.insertedKeys()) {
                inserted.add(new DataDiff.Sample(k, null, document(now, name, ids.get(k), limits)));
            }
            for (String k : tally.updatedKeys()) {
                updated.add(new DataDiff.Sample(
                        k, document(then, name, ids.get(k), limits), document(now, name, ids.get(k), limits)));
            }
            for (String k : sortedKeys(tally.deletedKeys())) {
                deleted.add(new DataDiff.Sample(k, document(then, name, ids.get(k), limits), null));
            }
            out.add(tally.part("collection", name, "_id", status, inserted, updated, deleted, null));
        }
        return out.build();
    }

    /** {@code _id} → digest of the document's bytes, for every document of collection {@code name}. */
    private static Map<BsonValue, byte[]> digests(MongoDatabase db, String name) {
        Map<BsonValue, byte[]> out = new HashMap<>();
        try (MongoCursor<RawBsonDocument> cursor = db.getCollection(name, RawBsonDocument.class)
                .find()
                .batchSize(BATCH)
                .iterator()) {
            while (cursor.hasNext()) {
                RawBsonDocument doc = cursor.next();
                out.put(doc.get("_id"), digest(doc));
            }
        }
        return out;
    }

    private static byte[] digest(RawBsonDocument doc) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            ByteBuffer bytes = doc.getByteBuffer().asNIO();
            md.update(bytes);
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An {@code _id} as relaxed extended JSON, e.g. {@code 1} or {@code {"$oid": "…"}}. */
    static String key(BsonValue id) {
        String json = new BsonDocument("_id", id).toJson();
        // {"_id": <value>}
        return json.substring(json.indexOf(':') + 1, json.length() - 1).strip();
    }

    private static String document(MongoDatabase db, String collection, BsonValue id, Limits limits) {
        RawBsonDocument doc = db.getCollection(collection, RawBsonDocument.class)
                .find(Filters.eq("_id", id))
                .first();
        return doc == null ? null : limits.cut(doc.toJson());
    }

    private static List<String> sortedKeys(List<String> keys) {
        return new TreeSet<>(keys).stream().toList();
    }

    /** The agent's collections of {@code db}: not {@code system.*}, not the checkpoint's marker, no views. */
    private static List<String> collections(MongoDatabase db) {
        List<String> out = new ArrayList<>();
        for (Document info : db.listCollections()) {
            String type = info.getString("type");
            String name = info.getString("name");
            if ((type == null || type.equals("collection"))
                    && !name.startsWith("system.")
                    && !name.equals(MongoCheckpoints.MARKER)) {
                out.add(name);
            }
        }
        return out;
    }
}
