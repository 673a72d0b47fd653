package io.roboco.sandbox.engine.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SecretSource;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

/**
 * The Mongo start probe against a listener that answers as a server would in each state: what it sends (an
 * {@code isMaster} naming the admin user, never a password) and how it reads each answer. Its run against the real
 * server is every Mongo IT's start ({@code RunningSandbox}, the provisioner's and the server's).
 */
class MongoAcceptingTest {
    private final Credentials credentials = new MongoEngine().newCredentials(SecretSource.secure());

    private static final BsonDocument READY = new BsonDocument("ismaster", BsonBoolean.TRUE)
            .append("ok", new BsonDouble(1))
            .append(
                    "saslSupportedMechs",
                    new BsonArray(List.of(new BsonString("SCRAM-SHA-1"), new BsonString("SCRAM-SHA-256"))));

    @Test
    void readyWhenTheAdminUserMayLogInWithScramSha256AndNothingSecretWasSent() throws Exception {
        Heard heard = answerWith(id -> reply(id, id, READY));

        assertThat(heard.error).isNull();
        ByteBuffer sent = ByteBuffer.wrap(heard.bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(sent.getInt(0)).as("length").isEqualTo(heard.bytes.length);
        assertThat(sent.getInt(12)).as("opcode").isEqualTo(MongoAccepting.OP_MSG);
        BsonDocument command = new RawBsonDocument(heard.bytes, 21, heard.bytes.length - 21);
        assertThat(command.getInt32("isMaster").getValue()).isEqualTo(1);
        assertThat(command.getString("saslSupportedMechs").getValue()).isEqualTo("admin." + credentials.adminUser());
        assertThat(command.getString("$db").getValue()).isEqualTo("admin");
        assertThat(new String(heard.bytes, StandardCharsets.ISO_8859_1))
                .doesNotContain(credentials.adminPassword(), credentials.password());
    }

    @Test
    void notReadyUntilTheAdminUserExists() {
        BsonDocument noUser = new BsonDocument("ismaster", BsonBoolean.TRUE).append("ok", new BsonDouble(1));
        assertThat(answerWith(id -> reply(id, id, noUser)).error).hasMessageContaining("no SCRAM-SHA-256 admin user");
        BsonDocument sha1Only =
                noUser.clone().append("saslSupportedMechs", new BsonArray(List.of(new BsonString("SCRAM-SHA-1"))));
        assertThat(answerWith(id -> reply(id, id, sha1Only)).error).hasMessageContaining("no SCRAM-SHA-256 admin user");
    }

    @Test
    void aRefusedCommandIsNotReady() {
        BsonDocument refused =
                new BsonDocument("ok", new BsonDouble(0)).append("errmsg", new BsonString("node is recovering"));
        assertThat(answerWith(id -> reply(id, id, refused)).error)
                .hasMessageContaining("refused isMaster")
                .hasMessageContaining("node is recovering");
    }

    @Test
    void anAnswerToAnotherRequestOrAStrangersBytesAreNotReady() {
        assertThat(answerWith(id -> reply(id, id + 1, READY)).error).hasMessageContaining("not a Mongo answer");
        byte[] http = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        assertThat(answerWith(id -> http).error).hasMessageContaining("not a Mongo answer");
        assertThat(answerWith(id -> {
                            byte[] torn = reply(id, id, READY);
                            torn[HEADER + 5] = 0x7f; // the document's length no longer fits the message
                            return torn;
                        })
                        .error)
                .hasMessageContaining("not a Mongo answer");
    }

    @Test
    void aListenerThatClosesIsNotReady() {
        assertThat(answerWith(id -> new byte[0]).error).hasMessageContaining("closed the connection");
    }

    @Test
    void aRefusedConnectionIsNotReady() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        ProbeTarget nobody = ProbeTarget.of(new Endpoint("127.0.0.1", port), credentials);
        assertThatThrownBy(() -> MongoAccepting.check(nobody)).isInstanceOf(IOException.class);
        assertThatCode(() -> MongoAccepting.request(1, credentials.adminUser())).doesNotThrowAnyException();
    }

    private static final int HEADER = 16;

    /** An {@code OP_MSG} reply to {@code responseTo} with one body section. */
    private static byte[] reply(int requestId, int responseTo, BsonDocument body) {
        ByteBuffer doc = new RawBsonDocument(body, new BsonDocumentCodec())
                .getByteBuffer()
                .asNIO();
        int length = HEADER + 5 + doc.remaining();
        return ByteBuffer.allocate(length)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(length)
                .putInt(requestId + 1000)
                .putInt(responseTo)
                .putInt(MongoAccepting.OP_MSG)
                .putInt(0)
                .put((byte) 0)
                .put(doc)
                .array();
    }

    /** What the listener heard, and what the probe threw (null: ready). */
    private record Heard(byte[] bytes, Exception error) {}

    /** Runs the probe against a listener that reads one request and answers {@code answer.apply(its request id)}. */
    private Heard answerWith(IntFunction<byte[]> answer) {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> heard = CompletableFuture.supplyAsync(() -> {
                try (Socket s = listener.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    byte[] head = new byte[4];
                    in.readFully(head);
                    int length =
                            ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN).getInt();
                    byte[] request = Arrays.copyOf(head, length);
                    in.readFully(request, 4, length - 4);
                    int id = ByteBuffer.wrap(request)
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .getInt(4);
                    s.getOutputStream().write(answer.apply(id));
                    s.getOutputStream().flush();
                    return request;
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            Exception error = null;
            try {
                MongoAccepting.check(ProbeTarget.of(new Endpoint("127.0.0.1", listener.getLocalPort()), credentials));
            } catch (Exception e) {
                error = e;
            }
            return new Heard(heard.get(10, TimeUnit.SECONDS), error);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
