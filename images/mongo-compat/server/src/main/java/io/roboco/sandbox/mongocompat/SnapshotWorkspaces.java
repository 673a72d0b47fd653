package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.netty.channel.Channel;
import io.roboco.sandbox.mongocompat.txn.Workspace;
import io.roboco.sandbox.mongocompat.txn.Workspaces;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Transaction workspaces as copies: at the transaction's start every collection (documents, indexes, validators,
 * text indexes) is copied, under the server's write lock, into a private in-memory backend. Before its first write to
 * a collection the transaction notes that collection's documents (the base); the commit compares base and result by
 * {@code _id}, checks that the server still holds the base of every changed document, and applies the changes (all
 * or, on a duplicate key, none).
 */
final class SnapshotWorkspaces implements Workspaces {
    private static final Set<String> WRITES = Set.of("insert", "update", "delete", "findandmodify");

    private final StandInBackend server;

    SnapshotWorkspaces(StandInBackend server) {
        this.server = server;
    }

    @Override
    public Workspace open(Channel channel) {
        server.lock().writeLock().lock();
        try {
            StandInMemory copy = new StandInMemory();
            StandInMemory from = server.memory;
            for (String db : from.databaseNames()) {
                for (String name : from.collectionNames(db)) {
                    MongoCollection<?> source = from.collection(db, name).orElseThrow();
                    MongoCollection<?> target = copy.collectionOrCreate(db, name);
                    List<Document> indexes = new ArrayList<>();
                    for (Document index : from.indexes(db, name)) {
                        if (!"_id_".equals(index.get("name"))) {
                            Document spec = index.cloneDeeply();
                            spec.remove("ns");
                            indexes.add(spec);
                        }
                    }
                    if (!indexes.isEmpty()) {
                        copy.handleCommand(channel, db, "createIndexes", new Document("createIndexes", name).append("indexes", indexes));
                    }
                    List<Document> docs = new ArrayList<>();
                    StandInMemory.find(source, new Document(), null, 0).forEach(d -> docs.add(d.cloneDeeply()));
                    target.insertDocuments(docs, true);
                }
            }
            return new Snapshot(StandInBackend.forTransaction(copy, server.catalog.copy()));
        } finally {
            server.lock().writeLock().unlock();
        }
    }

    private final class Snapshot implements Workspace {
        private final StandInBackend txn;
        /** Namespace → the documents it held before the transaction's first write to it, by _id. */
        private final Map<String, Map<Object, Document>> bases = new LinkedHashMap<>();

        Snapshot(StandInBackend txn) {
            this.txn = txn;
        }

        @Override
        public Document run(Channel channel, String db, String command, Document body) {
            if (WRITES.contains(command.toLowerCase(Locale.ROOT))) {
                String name = String.valueOf(body.get(command));
                bases.computeIfAbsent(db + "." + name, ns -> documents(txn.memory, db, name));
            }
            return txn.handleCommand(channel, db, command, body);
        }

        @Override
        public void commit() {
            server.lock().writeLock().lock();
            try {
                List<Change> changes = new ArrayList<>();
                for (Map.Entry<String, Map<Object, Document>> e : bases.entrySet()) {
                    String db = e.getKey().substring(0, e.getKey().indexOf('.'));
                    String name = e.getKey().substring(db.length() + 1);
                    Map<Object, Document> base = e.getValue();
                    Map<Object, Document> result = documents(txn.memory, db, name);
                    MongoCollection<?> current = server.memory.collection(db, name).orElse(null);
                    Set<Object> ids = new LinkedHashSet<>(base.keySet());
                    ids.addAll(result.keySet());
                    for (Object id : ids) {
                        Document before = base.get(id);
                        Document after = result.get(id);
                        if (Objects.equals(before, after)) {
                            continue;
                        }
                        if (!Objects.equals(byId(current, id), before)) {
                            throw new MongoServerError(WRITE_CONFLICT, "WriteConflict",
                                    "Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.");
                        }
                        changes.add(new Change(db, name, id, before, after));
                    }
                }
                apply(changes);
            } finally {
                server.lock().writeLock().unlock();
            }
        }

        private void apply(List<Change> changes) {
            List<Change> applied = new ArrayList<>();
            for (Change c : changes) {
                MongoCollection<?> coll = server.memory.collectionOrCreate(c.db(), c.name());
                if (c.before() != null) {
                    coll.deleteDocuments(new Document("_id", c.id()), 1);
                }
                if (c.after() != null) {
                    List<Document> errors = coll.insertDocuments(List.of(c.after().cloneDeeply()), true);
                    if (!errors.isEmpty()) {
                        if (c.before() != null) {
                            coll.insertDocuments(List.of(c.before().cloneDeeply()), true);
                        }
                        undo(applied);
                        Document error = errors.get(0);
                        throw new MongoServerError(((Number) error.get("code")).intValue(), String.valueOf(error.get("codeName")),
                                String.valueOf(error.get("errmsg")));
                    }
                }
                applied.add(c);
            }
        }

        private void undo(List<Change> applied) {
            for (int i = applied.size() - 1; i >= 0; i--) {
                Change c = applied.get(i);
                MongoCollection<?> coll = server.memory.collectionOrCreate(c.db(), c.name());
                if (c.after() != null) {
                    coll.deleteDocuments(new Document("_id", c.id()), 1);
                }
                if (c.before() != null) {
                    coll.insertDocuments(List.of(c.before().cloneDeeply()), true);
                }
            }
        }
    }

    private static final int WRITE_CONFLICT = 112;

    private record Change(String db, String name, Object id, Document before, Document after) {
    }

    /** The server's document with this _id now (an _id index lookup), or null. */
    private static Document byId(MongoCollection<?> collection, Object id) {
        if (collection == null) {
            return null;
        }
        List<Document> found = StandInMemory.find(collection, new Document("_id", id), null, 1);
        return found.isEmpty() ? null : found.get(0);
    }

    private static Map<Object, Document> documents(StandInMemory memory, String db, String name) {
        Map<Object, Document> out = new HashMap<>();
        memory.collection(db, name).ifPresent(c -> StandInMemory.find(c, new Document(), null, 0)
                .forEach(d -> out.put(d.get("_id"), d.cloneDeeply())));
        return out;
    }
}
