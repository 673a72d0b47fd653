package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.BinData;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.netty.channel.Channel;
import io.roboco.sandbox.mongocompat.auth.User;
import io.roboco.sandbox.mongocompat.auth.UserStore;
import io.roboco.sandbox.mongocompat.scram.ScramException;
import io.roboco.sandbox.mongocompat.scram.ScramMechanism;
import io.roboco.sandbox.mongocompat.scram.ScramServer;
import java.util.Optional;

/**
 * {@code saslStart} / {@code saslContinue} (and the same first step inside a handshake's
 * {@code speculativeAuthenticate}) as mongod answers them for SCRAM-SHA-1 and SCRAM-SHA-256:
 *
 * <pre>
 *   saslStart    {mechanism, payload: client-first, options: {skipEmptyExchange}}  -> {conversationId: 1, done: false, payload: server-first}
 *   saslContinue {conversationId: 1, payload: client-final}                          -> {done: skipEmptyExchange, payload: v=...}
 *   saslContinue {conversationId: 1, payload: empty}   (only without skipEmptyExchange) -> {done: true}
 * </pre>
 *
 * The connection is authenticated when {@code done} is true. Every failure is {@code AuthenticationFailed}
 * (code 18) without saying why, as mongod does; the reason goes to the log, never a secret.
 */
final class SaslCommands {
    private static final int CONVERSATION_ID = 1;

    private final UserStore users;

    SaslCommands(UserStore users) {
        this.users = users;
    }

    Document saslStart(Channel channel, String db, Document command) {
        ConnectionAuth auth = ConnectionAuth.of(channel);
        String mechanismName = String.valueOf(command.get("mechanism"));
        Optional<ScramMechanism> mechanism = ScramMechanism.bySaslName(mechanismName);
        if (mechanism.isEmpty()) {
            auth.endConversation();
            throw MongoErrors.error(MongoErrors.MECHANISM_UNAVAILABLE, "MechanismUnavailable",
                    "Received authentication for mechanism " + mechanismName + " which is not enabled");
        }
        byte[] payload = payload(command);
        Object options = command.get("options");
        boolean skipEmpty = options instanceof Document o && Utils.isTrue(o.get("skipEmptyExchange"));
        ScramServer scram = new ScramServer(mechanism.get(),
                name -> users.find(db, name).map(u -> u.credentials().get(mechanism.get())).orElse(null));
        ConnectionAuth.Conversation conversation = new ConnectionAuth.Conversation(CONVERSATION_ID, db, scram, skipEmpty);
        auth.begin(conversation);
        try {
            byte[] serverFirst = scram.start(payload);
            return reply(false, serverFirst);
        } catch (ScramException e) {
            throw fail(channel, auth, conversation, e.getMessage());
        }
    }

    Document saslContinue(Channel channel, Document command) {
        ConnectionAuth auth = ConnectionAuth.of(channel);
        ConnectionAuth.Conversation conversation = auth.conversation();
        if (conversation == null) {
            throw MongoErrors.error(MongoErrors.PROTOCOL_ERROR, "ProtocolError", "No SASL session state found");
        }
        Object id = command.get("conversationId");
        if (!(id instanceof Number n) || n.intValue() != conversation.id) {
            auth.endConversation();
            throw MongoErrors.error(MongoErrors.PROTOCOL_ERROR, "ProtocolError", "sasl: Mismatched conversation id");
        }
        byte[] payload = payload(command);
        if (conversation.awaitingEmptyStep) {
            if (payload.length != 0) {
                throw fail(channel, auth, conversation, "unexpected payload after the SCRAM exchange was complete");
            }
            return succeed(auth, conversation, new byte[0]);
        }
        try {
            byte[] serverFinal = conversation.scram.finish(payload);
            if (conversation.skipEmptyExchange) {
                return succeed(auth, conversation, serverFinal);
            }
            conversation.awaitingEmptyStep = true;
            return reply(false, serverFinal);
        } catch (ScramException e) {
            throw fail(channel, auth, conversation, e.getMessage());
        }
    }

    /**
     * The first step of a handshake's {@code speculativeAuthenticate}: the reply's field, or empty when it failed
     * (the driver then runs a normal exchange, which fails the same way and tells it so).
     */
    Optional<Document> speculativeStart(Channel channel, Document request) {
        String db = String.valueOf(request.get("db"));
        try {
            return Optional.of(saslStart(channel, db, request));
        } catch (MongoServerError e) {
            return Optional.empty();
        }
    }

    /** {@code saslSupportedMechs: "db.user"} of a handshake: the user's mechanisms, or nothing for an unknown user. */
    Optional<java.util.List<String>> supportedMechanisms(Object dbDotUser) {
        if (!(dbDotUser instanceof String s) || s.indexOf('.') < 1) {
            return Optional.empty();
        }
        int dot = s.indexOf('.');
        return users.find(s.substring(0, dot), s.substring(dot + 1)).map(User::credentials)
                .map(c -> java.util.Arrays.stream(ScramMechanism.values()).filter(c::containsKey).map(ScramMechanism::saslName).toList());
    }

    private Document succeed(ConnectionAuth auth, ConnectionAuth.Conversation conversation, byte[] payload) {
        auth.authenticated(conversation.db, conversation.scram.username());
        return reply(true, payload);
    }

    private MongoServerError fail(Channel channel, ConnectionAuth auth, ConnectionAuth.Conversation conversation, String why) {
        auth.endConversation();
        MongodLog.authenticationFailed(conversation.scram.mechanism().saslName(), conversation.scram.username(), conversation.db,
                String.valueOf(channel.remoteAddress()), why);
        return MongoErrors.authenticationFailed();
    }

    private static byte[] payload(Document command) {
        Object payload = command.get("payload");
        if (payload instanceof BinData bin) {
            return bin.getData();
        }
        if (payload instanceof String s) {   // the legacy shell sends a string
            return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        throw MongoErrors.error(MongoErrors.BAD_VALUE, "BadValue", "sasl payload must be binary");
    }

    private static Document reply(boolean done, byte[] payload) {
        Document reply = new Document("conversationId", CONVERSATION_ID);
        reply.put("done", done);
        reply.put("payload", new BinData(payload));
        Utils.markOkay(reply);
        return reply;
    }
}
