package io.roboco.sandbox.mongocompat;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.roboco.sandbox.mongocompat.scram.ScramServer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one client connection has proved: the user it authenticated as ({@code name@db}, looked up again on
 * every command, so a dropped user loses its rights at once) and the SASL conversation in progress. Kept on
 * the Netty channel; a connection's commands arrive one at a time on its event loop.
 */
final class ConnectionAuth {
    private static final AttributeKey<ConnectionAuth> KEY = AttributeKey.valueOf("roboco.mongocompat.auth");
    private static final AtomicInteger IDS = new AtomicInteger();

    /** A SASL exchange in progress on this connection. */
    static final class Conversation {
        final int id;
        final String db;
        final ScramServer scram;
        final boolean skipEmptyExchange;
        /** The proof was accepted; only the empty closing step is missing (clients that did not ask to skip it). */
        boolean awaitingEmptyStep;

        Conversation(int id, String db, ScramServer scram, boolean skipEmptyExchange) {
            this.id = id;
            this.db = db;
            this.scram = scram;
            this.skipEmptyExchange = skipEmptyExchange;
        }
    }

    final int connectionId = IDS.incrementAndGet();
    private String userDb;
    private String userName;
    private Conversation conversation;

    static ConnectionAuth of(Channel channel) {
        ConnectionAuth auth = channel.attr(KEY).get();
        if (auth == null) {
            ConnectionAuth fresh = new ConnectionAuth();
            auth = channel.attr(KEY).setIfAbsent(fresh);
            if (auth == null) {
                auth = fresh;
            }
        }
        return auth;
    }

    synchronized void authenticated(String db, String name) {
        this.userDb = db;
        this.userName = name;
        this.conversation = null;
    }

    synchronized String userDb() {
        return userDb;
    }

    synchronized String userName() {
        return userName;
    }

    synchronized Conversation conversation() {
        return conversation;
    }

    synchronized void begin(Conversation c) {
        conversation = c;
    }

    synchronized void endConversation() {
        conversation = null;
    }
}
