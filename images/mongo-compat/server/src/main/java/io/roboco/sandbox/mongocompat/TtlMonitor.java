package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.bson.Document;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * mongod's TTL monitor: every {@code ttlMonitorSleepSecs} (60 by default) it deletes the documents whose indexed date
 * (or earliest date, for an array) is more than the index's {@code expireAfterSeconds} in the past. Documents whose
 * field is not a date never expire, as in mongod.
 */
final class TtlMonitor {
    private static final Logger LOG = LoggerFactory.getLogger(TtlMonitor.class);
    private static final Map<StandInBackend, ScheduledExecutorService> RUNNING = new ConcurrentHashMap<>();

    private TtlMonitor() {
    }

    static void start(StandInBackend backend, long sleepSeconds) {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ttl-monitor");
            t.setDaemon(true);
            return t;
        });
        RUNNING.put(backend, executor);
        executor.scheduleWithFixedDelay(() -> {
            try {
                sweepOnce(backend);
            } catch (RuntimeException e) {
                LOG.warn("unexpected exception in the TTL monitor ({}); trying again next pass", e.getClass().getName());
            }
        }, sleepSeconds, sleepSeconds, TimeUnit.SECONDS);
    }

    static void stop(StandInBackend backend) {
        ScheduledExecutorService executor = RUNNING.remove(backend);
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    /** One pass; returns how many documents it deleted. */
    static int sweepOnce(StandInBackend backend) {
        StandInMemory memory = backend.memory;
        Instant now = backend.getClock().instant();
        int deleted = 0;
        backend.lock().readLock().lock();
        try {
            for (String db : memory.databaseNames()) {
                for (String name : memory.collectionNames(db)) {
                    MongoCollection<?> coll = memory.collection(db, name).orElse(null);
                    if (coll == null) {
                        continue;
                    }
                    for (Document index : memory.indexes(db, name)) {
                        if (index.get("expireAfterSeconds") instanceof Number seconds && index.get("key") instanceof Document key
                                && key.size() == 1) {
                            String field = key.keySet().iterator().next();
                            Instant cutoff = now.minusMillis((long) (seconds.doubleValue() * 1000));
                            deleted += coll.deleteDocuments(new Document(field, new Document("$lt", cutoff)), 0);
                        }
                    }
                }
            }
        } finally {
            backend.lock().readLock().unlock();
        }
        return deleted;
    }
}
