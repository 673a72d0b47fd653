package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.exception.MongoServerException;
import de.bwaldvogel.mongo.exception.MongoServerNotYetImplementedException;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import de.bwaldvogel.mongo.wire.message.MongoQuery;
import io.netty.channel.Channel;
import io.roboco.sandbox.mongocompat.fidelity.CommandOptions;
import io.roboco.sandbox.mongocompat.fidelity.Operators;
import io.roboco.sandbox.mongocompat.fidelity.StandIn;
import io.roboco.sandbox.mongocompat.text.TextIndex;
import io.roboco.sandbox.mongocompat.txn.Transactions;
import io.roboco.sandbox.mongocompat.validation.CollectionValidator;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Consumer;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * What the stand-in adds to mongo-java-server's in-memory backend, in front of it: every command's options and
 * operators are checked first ({@link CommandOptions}, {@link Operators}: what the stand-in lacks is refused by name,
 * never ignored); collection validators ({@link ValidatedWrites}), text indexes and {@code $text} ({@link TextSearch}),
 * multi-document transactions ({@link Transactions}) and TTL expiry ({@link TtlMonitor}) are served here.
 *
 * <p>A transaction runs on a private copy: a {@code StandInBackend} without transactions of its own over a snapshot
 * of the data, merged back on commit.
 */
public final class StandInBackend implements MongoBackend {
    private static final List<String> WRITES = List.of("insert", "update", "delete", "findandmodify", "create", "drop",
            "dropdatabase", "createindexes", "dropindexes", "collmod", "renamecollection");

    final StandInMemory memory;
    final Catalog catalog;
    private final Transactions transactions;
    private final ReadWriteLock lock;
    private final ValidatedWrites validatedWrites;
    private final TextSearch textSearch;

    /** The server's backend: transactions and TTL expiry on. */
    public static StandInBackend create() {
        return new StandInBackend(new StandInMemory(), new Catalog(), true);
    }

    private StandInBackend(StandInMemory memory, Catalog catalog, boolean main) {
        this.memory = memory;
        this.catalog = catalog;
        this.lock = new ReentrantReadWriteLock();
        this.transactions = main ? new Transactions(new SnapshotWorkspaces(this)) : null;
        this.validatedWrites = new ValidatedWrites(memory, catalog);
        this.textSearch = new TextSearch(memory, catalog);
    }

    /** A backend over {@code memory} for one transaction: no transactions, no TTL. */
    static StandInBackend forTransaction(StandInMemory memory, Catalog catalog) {
        return new StandInBackend(memory, catalog, false);
    }

    ReadWriteLock lock() {
        return lock;
    }

    /** Starts the TTL monitor (mongod's {@code ttlMonitorSleepSecs}, default 60). */
    public StandInBackend withTtlMonitor(long sleepSeconds) {
        TtlMonitor.start(this, sleepSeconds);
        return this;
    }

    @Override
    public Document handleMessage(MongoMessage message) {
        Document body = message.getDocument();
        return handleCommand(message.getChannel(), message.getDatabaseName(), body.keySet().iterator().next(), body);
    }

    @Override
    public Document handleCommand(Channel channel, String db, String command, Document body) {
        try {
            String lower = command.toLowerCase(Locale.ROOT);
            CommandOptions.check(command, body);
            checkOperators(lower, command, body);
            if (transactions != null) {
                Document reply = transactions.route(channel, db, command, body);
                if (reply != null) {
                    return reply;
                }
            }
            if (transactions != null && (WRITES.contains(lower) || writesThroughPipeline(lower, body))) {
                lock.readLock().lock();
                try {
                    return execute(channel, db, command, body);
                } finally {
                    lock.readLock().unlock();
                }
            }
            return execute(channel, db, command, body);
        } catch (MongoServerNotYetImplementedException e) {
            return Transactions.reply(StandIn.refuse(e.getMessageWithoutErrorCode()));
        } catch (MongoServerException e) {
            return Transactions.reply(e);
        }
    }

    /** Runs one command on this backend (inside a transaction: on its private copy). */
    Document execute(Channel channel, String db, String command, Document body) {
        String lower = command.toLowerCase(Locale.ROOT);
        return switch (lower) {
            case "create" -> create(channel, db, command, body);
            case "collmod" -> collMod(db, command, body);
            case "createindexes" -> createIndexes(channel, db, command, body);
            case "dropindexes" -> after(memory.handleCommand(channel, db, command, body),
                    () -> catalog.dropIndex(db + "." + body.get(command), body.get("index")));
            case "drop" -> after(memory.handleCommand(channel, db, command, body), () -> catalog.drop(db + "." + body.get(command)));
            case "dropdatabase" -> after(memory.handleCommand(channel, db, command, body), () -> catalog.dropDatabase(db));
            case "renamecollection" -> after(memory.handleCommand(channel, db, command, body),
                    () -> catalog.rename(String.valueOf(body.get(command)), String.valueOf(body.get("to"))));
            case "listcollections" -> Catalog.listCollections(memory.handleCommand(channel, db, command, body), db, body, catalog);
            case "insert" -> validatedWrites.insert(channel, db, command, body);
            case "update" -> validatedWrites.update(channel, db, command, body);
            case "findandmodify" -> validatedWrites.findAndModify(channel, db, command, body);
            case "find" -> textSearch.isText(body.get("filter"))
                    ? textSearch.find(channel, db, command, body) : memory.handleCommand(channel, db, command, body);
            case "aggregate" -> textSearch.aggregate(channel, db, command, body);
            case "endsessions" -> {
                if (transactions != null) {
                    transactions.endSessions(body.get(command));
                }
                yield memory.handleCommand(channel, db, command, body);
            }
            default -> memory.handleCommand(channel, db, command, body);
        };
    }

    private static void checkOperators(String lower, String command, Document body) {
        switch (lower) {
            case "find" -> {
                Operators.checkFilter(body.get("filter"), "find", true);
                Operators.checkSort(body.get("sort"), "find");
                Operators.checkProjection(body.get("projection"), "find");
            }
            case "count" -> Operators.checkFilter(body.get("query"), "count", false);
            case "distinct" -> Operators.checkFilter(body.get("query"), "distinct", false);
            case "delete" -> statements(body.get("deletes"), s -> Operators.checkFilter(s.get("q"), "delete", false));
            case "update" -> statements(body.get("updates"), s -> {
                Operators.checkFilter(s.get("q"), "update", false);
                Operators.checkUpdate(s.get("u"), "update");
            });
            case "findandmodify" -> {
                Operators.checkFilter(body.get("query"), command, false);
                Operators.checkSort(body.get("sort"), command);
                Operators.checkUpdate(body.get("update"), command);
            }
            case "aggregate" -> Operators.checkPipeline(body.get("pipeline"), "aggregate");
            default -> {
            }
        }
    }

    private static void statements(Object list, Consumer<Document> check) {
        if (list instanceof List<?> items) {
            items.stream().filter(Document.class::isInstance).map(Document.class::cast).forEach(check);
        }
    }

    private static boolean writesThroughPipeline(String lower, Document body) {
        return lower.equals("aggregate") && body.get("pipeline") instanceof List<?> stages && !stages.isEmpty()
                && stages.get(stages.size() - 1) instanceof Document last
                && (last.containsKey("$out") || last.containsKey("$merge"));
    }

    private Document create(Channel channel, String db, String command, Document body) {
        String ns = db + "." + body.get(command);
        boolean validates = body.containsKey("validator") || body.containsKey("validationLevel") || body.containsKey("validationAction");
        CollectionValidator validator = validates ? CollectionValidator.from(body, null) : null;
        Document forBackend = new Document();
        for (Map.Entry<String, Object> e : body.entrySet()) {
            if (!List.of("validator", "validationLevel", "validationAction", "storageEngine", "indexOptionDefaults", "collation")
                    .contains(e.getKey())) {
                forBackend.put(e.getKey(), e.getValue());
            }
        }
        return after(memory.handleCommand(channel, db, command, forBackend), () -> {
            if (validator != null) {
                catalog.setValidator(ns, validator);
            }
        });
    }

    private Document collMod(String db, String command, Document body) {
        String ns = db + "." + body.get(command);
        if (memory.collection(db, String.valueOf(body.get(command))).isEmpty()) {
            throw new MongoServerError(26, "NamespaceNotFound", "ns does not exist: " + ns);
        }
        catalog.setValidator(ns, CollectionValidator.from(body, catalog.validator(ns)));
        Document reply = new Document();
        Utils.markOkay(reply);
        return reply;
    }

    private Document createIndexes(Channel channel, String db, String command, Document body) {
        String ns = db + "." + body.get(command);
        TextIndex text = null;
        if (body.get("indexes") instanceof List<?> indexes) {
            for (Object spec : indexes) {
                if (spec instanceof Document index && TextIndex.isText(index)) {
                    if (text != null) {
                        throw catalog.oneTextIndexOnly(ns, text.name());
                    }
                    text = TextIndex.fromSpec(index);
                    catalog.checkTextIndex(ns, text);
                }
            }
        }
        TextIndex added = text;
        return after(memory.handleCommand(channel, db, command, body), () -> {
            if (added != null) {
                catalog.setTextIndex(ns, added);
            }
        });
    }

    /** Runs {@code then} when {@code reply} is a success. */
    private static Document after(Document reply, Runnable then) {
        if (reply != null && Utils.isTrue(reply.get("ok")) && !reply.containsKey("writeErrors")) {
            then.run();
        }
        return reply;
    }

    // --- MongoBackend plumbing --------------------------------------------------------------------------

    @Override
    public QueryResult handleQuery(MongoQuery query) {
        return memory.handleQuery(query);
    }

    @Override
    public Document getServerStatus() {
        return memory.getServerStatus();
    }

    @Override
    public Collection<Document> getCurrentOperations(MongoQuery query) {
        return memory.getCurrentOperations(query);
    }

    @Override
    public void handleClose(Channel channel) {
        memory.handleClose(channel);
    }

    @Override
    public void dropDatabase(String databaseName) {
        memory.dropDatabase(databaseName);
        catalog.dropDatabase(databaseName);
    }

    @Override
    public void close() {
        TtlMonitor.stop(this);
        memory.close();
    }

    @Override
    public void closeCursors(List<Long> cursorIds) {
        memory.closeCursors(cursorIds);
    }

    @Override
    public Clock getClock() {
        return memory.getClock();
    }

    @Override
    public void enableOplog() {
        throw StandIn.refuse("the oplog");
    }

    @Override
    public void disableOplog() {
        memory.disableOplog();
    }

    @Override
    public MongoDatabase resolveDatabase(String database) {
        return memory.resolveDatabase(database);
    }

    @Override
    public MongoBackend version(MongoVersion version) {
        memory.version(version);
        return this;
    }
}
