package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerException;
import de.bwaldvogel.mongo.exception.MongoServerNotYetImplementedException;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import de.bwaldvogel.mongo.wire.message.MongoQuery;
import io.netty.channel.Channel;
import io.roboco.sandbox.mongocompat.fidelity.CommandOptions;
import io.roboco.sandbox.mongocompat.fidelity.Operators;
import io.roboco.sandbox.mongocompat.fidelity.StandIn;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Consumer;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * What the stand-in adds to mongo-java-server's in-memory backend, in front of it: every command's options and
 * operators are checked first ({@link CommandOptions}, {@link Operators}: what the stand-in lacks is refused by name,
 * never ignored); TTL expiry ({@link TtlMonitor}), {@code listCollections}' filter and the {@code $set} /
 * {@code $replaceWith} stages are served here.
 */
public final class StandInBackend implements MongoBackend {
    private static final List<String> WRITES = List.of("insert", "update", "delete", "findandmodify", "create", "drop",
            "dropdatabase", "createindexes", "dropindexes", "collmod", "renamecollection");

    final StandInMemory memory;
    private final ReadWriteLock lock;

    /** The server's backend. */
    public static StandInBackend create() {
        return new StandInBackend(new StandInMemory());
    }

    private StandInBackend(StandInMemory memory) {
        this.memory = memory;
        this.lock = new ReentrantReadWriteLock();
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
            if (WRITES.contains(lower) || writesThroughPipeline(lower, body)) {
                lock.readLock().lock();
                try {
                    return execute(channel, db, command, body);
                } finally {
                    lock.readLock().unlock();
                }
            }
            return execute(channel, db, command, body);
        } catch (MongoServerNotYetImplementedException e) {
            return MongoErrors.reply(StandIn.refuse(e.getMessageWithoutErrorCode()));
        } catch (MongoServerException e) {
            return MongoErrors.reply(e);
        }
    }

    /** Runs one command on the backend. */
    Document execute(Channel channel, String db, String command, Document body) {
        String lower = command.toLowerCase(Locale.ROOT);
        return switch (lower) {
            case "collmod" -> throw StandIn.refuse("collMod");
            case "listcollections" -> Catalog.listCollections(memory.handleCommand(channel, db, command, body), db, body, null);
            case "aggregate" -> {
                Document forBackend = new Document(body);
                if (body.get("pipeline") instanceof List<?> stages) {
                    forBackend.put("pipeline", Pipelines.rewrite(stages));
                }
                yield memory.handleCommand(channel, db, command, forBackend);
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
