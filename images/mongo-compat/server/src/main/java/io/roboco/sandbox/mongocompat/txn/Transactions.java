package io.roboco.sandbox.mongocompat.txn;

import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.exception.MongoServerException;
import io.netty.channel.Channel;
import io.roboco.sandbox.mongocompat.fidelity.StandIn;
import io.roboco.sandbox.mongocompat.validation.CollectionValidator.ValidationFailure;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Multi-document transactions per logical session, as drivers run them ({@code lsid} + {@code txnNumber} +
 * {@code autocommit: false}, {@code startTransaction: true} on the first command, then {@code commitTransaction} /
 * {@code abortTransaction}). Each transaction works on its own snapshot of the data ({@link Workspace}): it sees
 * what was committed when it started plus its own writes, and nobody else sees its writes before the commit. The
 * commit applies the changed documents if none of them changed outside since the snapshot (first committer wins;
 * otherwise {@code WriteConflict}, labelled {@code TransientTransactionError} so drivers retry). Any error inside a
 * transaction aborts it, and one older than mongod's {@code transactionLifetimeLimitSeconds} (60) is aborted.
 */
public final class Transactions {
    static final int NO_SUCH_TRANSACTION = 251;
    static final int WRITE_CONFLICT = 112;
    static final int OPERATION_NOT_SUPPORTED_IN_TRANSACTION = 263;
    static final Duration LIFETIME = Duration.ofSeconds(60);

    private static final Set<String> IN_TRANSACTION = Set.of("find", "aggregate", "distinct", "insert", "update", "delete",
            "findandmodify", "getmore", "killcursors");

    private final Workspaces workspaces;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();

    /** The {@code workspaces} make and merge transaction snapshots of the server's data. */
    public Transactions(Workspaces workspaces) {
        this.workspaces = workspaces;
    }

    /** Runs {@code command} inside its transaction, or returns null when it is not part of one. */
    public Document route(Channel channel, String db, String command, Document body) {
        String lower = command.toLowerCase(Locale.ROOT);
        boolean txnCommand = lower.equals("committransaction") || lower.equals("aborttransaction");
        boolean inTransaction = body.get("lsid") instanceof Document && body.get("txnNumber") instanceof Number
                && Boolean.FALSE.equals(body.get("autocommit"));
        if (!inTransaction) {
            if (txnCommand) {
                throw new MongoServerError(50768, "Location50768", "txnNumber and autocommit: false are required for " + command);
            }
            return null; // a plain command, or a retryable write (txnNumber without autocommit): runs once, as is
        }
        expireOld();
        String key = sessionKey((Document) body.get("lsid"));
        long number = ((Number) body.get("txnNumber")).longValue();
        Session session = sessions.computeIfAbsent(key, k -> new Session());
        synchronized (session) {
            if (lower.equals("committransaction")) {
                return session.commit(number);
            }
            if (lower.equals("aborttransaction")) {
                return session.abort(number);
            }
            if (!IN_TRANSACTION.contains(lower)) {
                if (lower.equals("create") || lower.equals("createindexes")) {
                    throw StandIn.refuse("'" + command + "' inside a transaction", "create the collection or index before the transaction");
                }
                throw new MongoServerError(OPERATION_NOT_SUPPORTED_IN_TRANSACTION, "OperationNotSupportedInTransaction",
                        "Cannot run '" + command + "' in a multi-document transaction.");
            }
            if (Utils.isTrue(body.get("startTransaction"))) {
                session.begin(number, workspaces.open(channel));
            }
            Transaction txn = session.active(number);
            Document reply;
            try {
                reply = txn.workspace().run(channel, db, command, body);
            } catch (RuntimeException e) {
                session.discard();
                throw e;
            }
            if (!Utils.isTrue(reply.get("ok")) || reply.containsKey("writeErrors")) {
                session.discard(); // as mongod: an error aborts the transaction (labels only where mongod puts them)
            }
            return reply;
        }
    }

    /** {@code endSessions}: their transactions end (aborted if open). */
    public void endSessions(Object ids) {
        if (ids instanceof List<?> list) {
            for (Object id : list) {
                if (id instanceof Document lsid) {
                    sessions.remove(sessionKey(lsid));
                }
            }
        }
    }

    private void expireOld() {
        long now = System.nanoTime();
        sessions.values().forEach(s -> {
            synchronized (s) {
                s.expireIfOlderThan(now - LIFETIME.toNanos());
            }
        });
    }

    private static String sessionKey(Document lsid) {
        return String.valueOf(lsid.get("id")) + "/" + String.valueOf(lsid.get("uid"));
    }

    /** The error reply for {@code e}, with mongod's labels and {@code errInfo} where they apply. */
    public static Document reply(MongoServerException e) {
        Document reply = new Document("ok", 0.0);
        reply.put("errmsg", e.getMessageWithoutErrorCode());
        if (e instanceof MongoServerError error) {
            reply.put("code", error.getCode());
            reply.putIfNotNull("codeName", error.getCodeName());
            if (error.getCode() == NO_SUCH_TRANSACTION || error.getCode() == WRITE_CONFLICT) {
                reply.put("errorLabels", List.of("TransientTransactionError"));
            }
        }
        if (e instanceof ValidationFailure failure) {
            reply.put("errInfo", failure.errInfo());
        }
        return reply;
    }

    static MongoServerError noSuchTransaction(long number) {
        return new MongoServerError(NO_SUCH_TRANSACTION, "NoSuchTransaction",
                "Transaction with txnNumber " + number + " has been aborted or is not in progress.");
    }

    /** One logical session: its latest transaction. */
    private static final class Session {
        private Transaction current;
        private long committed = -1;

        void begin(long number, Workspace workspace) {
            if (current != null && current.number() >= number) {
                throw new MongoServerError(225, "TransactionTooOld",
                        "txnNumber " + number + " is not newer than the session's transaction " + current.number());
            }
            current = new Transaction(number, workspace, System.nanoTime());
        }

        Transaction active(long number) {
            if (current == null || current.number() != number || current.workspace() == null) {
                throw noSuchTransaction(number);
            }
            return current;
        }

        Document commit(long number) {
            if (committed == number) {
                return ok(); // a retried commit of a committed transaction
            }
            Transaction txn = active(number);
            try {
                txn.workspace().commit();
                committed = number;
            } finally {
                current = new Transaction(number, null, txn.started());
            }
            return ok();
        }

        Document abort(long number) {
            Transaction txn = active(number);
            current = new Transaction(number, null, txn.started());
            return ok();
        }

        void discard() {
            if (current != null) {
                current = new Transaction(current.number(), null, current.started());
            }
        }

        void expireIfOlderThan(long nanos) {
            if (current != null && current.workspace() != null && current.started() < nanos) {
                discard();
            }
        }

        private static Document ok() {
            Document reply = new Document();
            Utils.markOkay(reply);
            return reply;
        }
    }

    /** A transaction number and its workspace (null once committed or aborted). */
    private record Transaction(long number, Workspace workspace, long started) {
    }
}
