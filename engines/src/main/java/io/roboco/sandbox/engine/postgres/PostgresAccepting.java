package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.Probes;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Whether a Postgres server accepts sessions, asked the way {@code pg_isready} asks: a startup message for the admin
 * user, then the server's first answer, and the connection closed before any credential is sent. A server that has
 * finished starting asks for authentication; one still starting (or recovering) answers {@code 57P03}. No login, so
 * no backend gets as far as authenticating, no SCRAM on either side and no driver: a not-yet-ready poll costs a
 * refused connect or one short-lived backend (the server logs nothing for a client that leaves at the password
 * prompt).
 *
 * <p>Ready means the answer is {@code AuthenticationSASL} offering {@code SCRAM-SHA-256}, the only method our logins
 * accept. Anything else (a cleartext or MD5 password request, a stranger's bytes) is "not ready": the poller keeps
 * asking until the start's timeout, and nothing secret was ever sent. A listener that answers SASL without being the
 * sandbox's server still gets no further: the first login after this (prepareAgent's, a claim's) requires SCRAM's
 * mutual proof.
 */
final class PostgresAccepting {
    /** Protocol 3.0 in a startup message. */
    private static final int PROTOCOL_3 = 196_608;

    private static final int AUTH_SASL = 10;
    /** SQLSTATE {@code cannot_connect_now}: the database system is starting up, or in recovery. */
    static final String STARTING_UP = "57P03";
    /** A first answer longer than this is not a server's. */
    private static final int MAX_ANSWER = 8192;

    private PostgresAccepting() {}

    /** Returns when the server at {@code target} asks for SCRAM-SHA-256; throws saying why not otherwise. */
    static void check(ProbeTarget target) throws IOException {
        Credentials c = target.credentials();
        Probes.ask(target.endpoint(), startupMessage(c.adminUser(), c.database()), PostgresAccepting::answer);
    }

    /** The startup message: length, protocol 3.0, user and database, application name. */
    static byte[] startupMessage(String user, String database) {
        ByteArrayOutputStream body = new ByteArrayOutputStream(96);
        for (String s : new String[] {"user", user, "database", database, "application_name", "roboco-sandbox"}) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            body.write(bytes, 0, bytes.length);
            body.write(0);
        }
        body.write(0);
        byte[] pairs = body.toByteArray();
        return ByteBuffer.allocate(8 + pairs.length)
                .putInt(8 + pairs.length)
                .putInt(PROTOCOL_3)
                .put(pairs)
                .array();
    }

    /** Reads the server's first message: passes on {@code AuthenticationSASL} with SCRAM-SHA-256, throws otherwise. */
    static void answer(DataInputStream in) throws IOException {
        int type;
        int length;
        try {
            type = in.readUnsignedByte();
            length = in.readInt();
        } catch (EOFException closed) {
            throw new IOException("the server closed the connection before answering");
        }
        if (length < 4 || length - 4 > MAX_ANSWER) {
            throw new IOException("not a Postgres answer (message '" + printable(type) + "' of length " + length + ")");
        }
        byte[] payload = new byte[length - 4];
        in.readFully(payload);
        ByteBuffer body = ByteBuffer.wrap(payload);
        if (type == 'R' && payload.length >= 4) {
            int code = body.getInt();
            if (code == AUTH_SASL && mechanisms(body).contains("\0SCRAM-SHA-256\0")) {
                return;
            }
            throw new IOException("the server asks for authentication method " + code + " (not SCRAM-SHA-256)");
        }
        if (type == 'E') {
            String sqlState = field(payload, 'C');
            if (STARTING_UP.equals(sqlState)) {
                throw new IOException("the database system is starting up");
            }
            throw new IOException("the server refused the session (" + sqlState + "): " + field(payload, 'M'));
        }
        throw new IOException("not a Postgres answer (message '" + printable(type) + "')");
    }

    /** The SASL mechanisms offered, as {@code \0name\0name\0}. */
    private static String mechanisms(ByteBuffer body) {
        byte[] rest = new byte[body.remaining()];
        body.get(rest);
        return "\0" + new String(rest, StandardCharsets.UTF_8);
    }

    /** One field of an ErrorResponse (code byte then a NUL-terminated string), or null. */
    static String field(byte[] payload, char code) {
        int i = 0;
        while (i < payload.length && payload[i] != 0) {
            byte fieldCode = payload[i++];
            int end = i;
            while (end < payload.length && payload[end] != 0) {
                end++;
            }
            if (fieldCode == code) {
                return new String(payload, i, end - i, StandardCharsets.UTF_8);
            }
            i = end + 1;
        }
        return null;
    }

    private static String printable(int type) {
        return type >= 0x20 && type < 0x7f ? Character.toString((char) type) : String.format("0x%02x", type);
    }
}
