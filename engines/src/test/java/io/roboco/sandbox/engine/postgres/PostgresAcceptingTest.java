package io.roboco.sandbox.engine.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SecretSource;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The start probe against a listener that answers as a Postgres server would in each state: what it sends (a startup
 * message naming the admin user, never a password) and how it reads each answer. Its run against real servers is in
 * every Postgres IT's start ({@code RunningSandbox}, the provisioner's and the server's).
 */
class PostgresAcceptingTest {
    private final Credentials credentials = new PostgresEngine().newCredentials(SecretSource.secure());

    @Test
    void readyWhenTheServerAsksForScramSha256AndNothingSecretWasSent() throws Exception {
        byte[] sasl = authentication(10, "SCRAM-SHA-256-PLUS\0SCRAM-SHA-256\0\0");
        Heard heard = answerWith(sasl, () -> PostgresAccepting.check(target(listener())));
        assertThat(heard.error).isNull();
        String sent = new String(heard.bytes, StandardCharsets.ISO_8859_1);
        assertThat(ByteBuffer.wrap(heard.bytes).getInt(4)).as("protocol 3.0").isEqualTo(196_608);
        assertThat(sent)
                .contains("user\0" + credentials.adminUser() + "\0", "database\0" + credentials.database() + "\0")
                .doesNotContain(credentials.adminPassword(), credentials.password());
    }

    @Test
    void notReadyWhileTheDatabaseSystemIsStartingUp() {
        byte[] startingUp = error("FATAL", "57P03", "the database system is starting up");
        assertThatThrownBy(() -> answerWith(startingUp, () -> PostgresAccepting.check(target(listener())))
                        .rethrow())
                .hasMessageContaining("starting up");
    }

    @Test
    void aCleartextOrMd5RequestIsNotReadyAndGetsNoPassword() throws Exception {
        for (int method : new int[] {3, 5}) {
            Heard heard = answerWith(
                    authentication(method, method == 5 ? "salt" : ""),
                    () -> PostgresAccepting.check(target(listener())));
            assertThat(heard.error).hasMessageContaining("authentication method " + method);
            assertThat(new String(heard.bytes, StandardCharsets.ISO_8859_1))
                    .doesNotContain(credentials.adminPassword());
        }
    }

    @Test
    void saslWithoutScramSha256IsNotReady() throws Exception {
        Heard heard =
                answerWith(authentication(10, "OAUTHBEARER\0\0"), () -> PostgresAccepting.check(target(listener())));
        assertThat(heard.error).hasMessageContaining("not SCRAM-SHA-256");
    }

    @Test
    void anotherRefusalIsNotReadyAndSaysWhy() throws Exception {
        Heard heard = answerWith(
                error("FATAL", "53300", "sorry, too many clients already"),
                () -> PostgresAccepting.check(target(listener())));
        assertThat(heard.error).hasMessageContaining("53300").hasMessageContaining("too many clients");
    }

    @Test
    void strangersBytesAndOversizedAnswersAreNotReady() throws Exception {
        Heard http = answerWith(
                "HTTP/1.1 400 Bad Request\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
                () -> PostgresAccepting.check(target(listener())));
        assertThat(http.error).hasMessageContaining("not a Postgres answer");
        byte[] huge = ByteBuffer.allocate(5).put((byte) 'R').putInt(1 << 30).array();
        Heard oversized = answerWith(huge, () -> PostgresAccepting.check(target(listener())));
        assertThat(oversized.error).hasMessageContaining("not a Postgres answer");
        Heard closed = answerWith(new byte[0], () -> PostgresAccepting.check(target(listener())));
        assertThat(closed.error).hasMessageContaining("closed the connection");
    }

    @Test
    void aClosedPortIsNotReady() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ProbeTarget target = ProbeTarget.of(new Endpoint("127.0.0.1", port), credentials);
        assertThatThrownBy(() -> PostgresAccepting.check(target)).isInstanceOf(IOException.class);
    }

    @Test
    void errorFieldsAreReadByTheirCode() {
        byte[] payload = error("FATAL", "57P03", "starting").clone();
        byte[] body = Arrays.copyOfRange(payload, 5, payload.length);
        assertThat(PostgresAccepting.field(body, 'C')).isEqualTo("57P03");
        assertThat(PostgresAccepting.field(body, 'M')).isEqualTo("starting");
        assertThat(PostgresAccepting.field(body, 'D')).isNull();
        assertThatCode(() -> PostgresAccepting.answer(
                        new DataInputStream(new ByteArrayInputStream(authentication(10, "SCRAM-SHA-256\0\0")))))
                .doesNotThrowAnyException();
    }

    // --- a one-connection listener answering with fixed bytes -----------------------------------------------------

    @FunctionalInterface
    private interface Probe {
        void run() throws Exception;
    }

    /** What the listener heard from the probe, and what the probe threw (null: it passed). */
    private static final class Heard {
        byte[] bytes;
        Exception error;

        Heard rethrow() throws Exception {
            if (error != null) {
                throw error;
            }
            return this;
        }
    }

    private int port;

    private Endpoint listener() {
        return new Endpoint("127.0.0.1", port);
    }

    private ProbeTarget target(Endpoint endpoint) {
        return ProbeTarget.of(endpoint, credentials);
    }

    /** Runs {@code probe} against a listener that reads the startup message, answers {@code answer} and closes. */
    private Heard answerWith(byte[] answer, Probe probe) throws Exception {
        Heard heard = new Heard();
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = server.getLocalPort();
            CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> {
                try (Socket client = server.accept()) {
                    client.setSoTimeout(5000);
                    InputStream in = client.getInputStream();
                    DataInputStream data = new DataInputStream(in);
                    int length = data.readInt();
                    byte[] rest = new byte[length - 4];
                    data.readFully(rest);
                    client.getOutputStream().write(answer);
                    client.getOutputStream().flush();
                    client.shutdownOutput();
                    ByteArrayOutputStream all = new ByteArrayOutputStream();
                    all.write(ByteBuffer.allocate(4).putInt(length).array());
                    all.write(rest);
                    all.write(in.readAllBytes()); // anything sent after the answer (nothing, or a password)
                    return all.toByteArray();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                probe.run();
            } catch (Exception e) {
                heard.error = e;
            }
            heard.bytes = received.get(10, TimeUnit.SECONDS);
        }
        return heard;
    }

    private static byte[] authentication(int code, String rest) {
        byte[] tail = rest.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + 4 + 4 + tail.length)
                .put((byte) 'R')
                .putInt(4 + 4 + tail.length)
                .putInt(code)
                .put(tail)
                .array();
    }

    private static byte[] error(String severity, String sqlState, String message) {
        String fields = "S" + severity + "\0C" + sqlState + "\0M" + message + "\0\0";
        byte[] body = fields.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + 4 + body.length)
                .put((byte) 'E')
                .putInt(4 + body.length)
                .put(body)
                .array();
    }
}
