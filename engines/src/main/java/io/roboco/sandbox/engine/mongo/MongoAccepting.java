package io.roboco.sandbox.engine.mongo;

import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.Probes;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInvalidOperationException;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Whether a Mongo server accepts sessions for the admin user, asked without a login: one {@code isMaster} (every
 * server since 3.6 takes it as {@code OP_MSG}, before any authentication) naming {@code admin.<admin user>} in
 * {@code saslSupportedMechs}, the question a driver asks to choose its mechanism. The server lists the mechanisms of
 * that user only if the user exists, so the answer proves the server is up with its root user made; no password, no
 * SCRAM on either side and no driver client (whose creation and SCRAM exchange cost ≈ 40-50 ms of CPU a poll here).
 *
 * <p>Ready means {@code ok: 1} and {@code SCRAM-SHA-256} among the admin user's mechanisms. Anything else (no such user
 * yet, an error, a stranger's bytes or silence) is "not ready": the poller keeps asking until the start's timeout, and
 * nothing secret was sent. A listener that answers like this without being the sandbox's server gets no further: the
 * first login after this ({@code prepareAgent}'s admin login) requires SCRAM's mutual proof.
 */
final class MongoAccepting {
    /** The wire protocol's {@code OP_MSG} opcode. */
    static final int OP_MSG = 2013;

    private static final int HEADER = 16;
    /** An answer longer than this is not an {@code isMaster} reply. */
    private static final int MAX_ANSWER = 64 * 1024;

    private static final AtomicInteger REQUEST_IDS = new AtomicInteger();

    private MongoAccepting() {}

    /** Returns when the server at {@code target} offers SCRAM-SHA-256 for its admin user; throws saying why not. */
    static void check(ProbeTarget target) throws IOException {
        int requestId = REQUEST_IDS.incrementAndGet();
        Probes.ask(
                target.endpoint(), request(requestId, target.credentials().adminUser()), in -> answer(in, requestId));
    }

    /** The {@code OP_MSG}: header (length, request id, 0, opcode), no flags, one body section with the command. */
    static byte[] request(int requestId, String adminUser) {
        BsonDocument command = new BsonDocument("isMaster", new BsonInt32(1))
                .append("saslSupportedMechs", new BsonString("admin." + adminUser))
                .append("$db", new BsonString("admin"));
        ByteBuffer body = new RawBsonDocument(command, new BsonDocumentCodec())
                .getByteBuffer()
                .asNIO();
        int length = HEADER + 4 + 1 + body.remaining();
        return ByteBuffer.allocate(length)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(length)
                .putInt(requestId)
                .putInt(0)
                .putInt(OP_MSG)
                .putInt(0)
                .put((byte) 0)
                .put(body)
                .array();
    }

    /** Reads the reply to request {@code requestId}: passes when it offers SCRAM-SHA-256 for the admin user. */
    static void answer(DataInputStream in, int requestId) throws IOException {
        byte[] header = new byte[HEADER];
        try {
            in.readFully(header);
        } catch (EOFException closed) {
            throw new IOException("the server closed the connection before answering");
        }
        ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        int length = h.getInt();
        h.getInt(); // the reply's own id
        int responseTo = h.getInt();
        int opCode = h.getInt();
        if (opCode != OP_MSG || responseTo != requestId || length < HEADER + 5 + 5 || length > MAX_ANSWER) {
            throw new IOException("not a Mongo answer to isMaster (opcode " + opCode + ", length " + length + ")");
        }
        byte[] message = new byte[length - HEADER];
        in.readFully(message);
        if (message[4] != 0) {
            throw new IOException("not a Mongo answer to isMaster (section kind " + message[4] + ")");
        }
        BsonDocument reply;
        try {
            reply = new RawBsonDocument(message, 5, message.length - 5);
            reply.size(); // walks the document: a malformed one throws here
        } catch (RuntimeException malformed) {
            throw new IOException("not a Mongo answer to isMaster (" + malformed.getMessage() + ")");
        }
        BsonValue ok = reply.get("ok");
        if (ok == null || !ok.isNumber() || ok.asNumber().doubleValue() != 1.0) {
            throw new IOException("the server refused isMaster: " + text(reply.get("errmsg")));
        }
        BsonValue mechanisms = reply.get("saslSupportedMechs");
        if (!(mechanisms instanceof BsonArray list) || !list.contains(new BsonString("SCRAM-SHA-256"))) {
            throw new IOException("the server has no SCRAM-SHA-256 admin user yet");
        }
    }

    private static String text(BsonValue value) {
        try {
            return value == null ? "no reason given" : value.asString().getValue();
        } catch (BsonInvalidOperationException notText) {
            return String.valueOf(value);
        }
    }
}
