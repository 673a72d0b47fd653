package io.roboco.sandbox.mongocompat.txn;

import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;

/** One transaction's private view of the data: commands run on it; {@link #commit} merges its changes back. */
public interface Workspace {
    Document run(Channel channel, String db, String command, Document body);

    /** Applies the transaction's changes, or throws (WriteConflict, DuplicateKey) and applies nothing. */
    void commit();
}
