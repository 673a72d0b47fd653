package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;

/**
 * Mongo wire-compatible stand-in: an in-memory {@code mongo-java-server} bound to
 * {@code --bind_ip} / {@code --port} (default 0.0.0.0:27017).
 *
 * <p>It has NO AUTHENTICATION and keeps data in memory only. On readiness it prints a
 * line shaped like mongod's {@code "Waiting for connections"} log entry, so log-based
 * wait strategies written for the real server work unchanged.
 *
 * <p>{@code --cds-training} starts on an ephemeral loopback port, talks to itself once and
 * exits: the image build runs it to record an AppCDS archive for a faster JVM start.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        String host = "0.0.0.0";
        int port = 27017;
        boolean training = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--bind_ip") && i + 1 < args.length) {
                host = firstAddress(args[++i]);
            } else if (a.startsWith("--bind_ip=")) {
                host = firstAddress(a.substring("--bind_ip=".length()));
            } else if (a.equals("--bind_ip_all")) {
                host = "0.0.0.0";
            } else if (a.equals("--port") && i + 1 < args.length) {
                port = Integer.parseInt(args[++i]);
            } else if (a.startsWith("--port=")) {
                port = Integer.parseInt(a.substring("--port=".length()));
            } else if (a.equals("--cds-training")) {
                training = true;
                host = "127.0.0.1";
                port = 0;
            }
        }

        MongoServer server = new MongoServer(new MemoryBackend());
        server.bind(host, port);
        InetSocketAddress bound = server.getLocalAddress();

        if (training) {
            ping(bound.getPort());
            server.shutdownNow();
            return;
        }

        System.out.printf("{\"t\":{\"$date\":\"%s\"},\"s\":\"I\",\"c\":\"NETWORK\",\"id\":23016,"
                + "\"ctx\":\"listener\",\"msg\":\"Waiting for connections\","
                + "\"attr\":{\"host\":\"%s\",\"port\":%d,\"ssl\":\"off\",\"server\":\"mongo-java-server\"}}%n",
                Instant.now(), host, bound.getPort());
        System.out.flush();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.shutdownNow();
            stopped.countDown();
        }, "shutdown"));
        stopped.await();
    }

    /** mongod accepts a comma-separated list; the stand-in binds the first address. */
    private static String firstAddress(String list) {
        String first = list.split(",")[0].trim();
        return first.equals("*") || first.equals("::,0.0.0.0") ? "0.0.0.0" : first;
    }

    /**
     * Sends {@code isMaster} (the drivers' handshake; mongo-java-server 1.47 has no
     * {@code hello}) and {@code ping} as OP_MSG and reads the replies.
     */
    private static void ping(int port) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int requestId = 1;
            for (String command : new String[] {"isMaster", "ping"}) {
                out.write(opMsg(requestId++, command));
                out.flush();
                byte[] lengthBytes = new byte[4];
                in.readFully(lengthBytes);
                int length = ByteBuffer.wrap(lengthBytes).order(ByteOrder.LITTLE_ENDIAN).getInt();
                in.readFully(new byte[length - 4]);
            }
        }
    }

    /** OP_MSG with one body section: {@code {<command>: 1, $db: "admin"}}. */
    private static byte[] opMsg(int requestId, String command) {
        ByteArrayOutputStream doc = new ByteArrayOutputStream();
        doc.write(0x10);
        writeCString(doc, command);
        writeInt(doc, 1);
        doc.write(0x02);
        writeCString(doc, "$db");
        byte[] db = "admin".getBytes(StandardCharsets.UTF_8);
        writeInt(doc, db.length + 1);
        doc.writeBytes(db);
        doc.write(0);
        doc.write(0);
        byte[] body = doc.toByteArray();

        ByteArrayOutputStream msg = new ByteArrayOutputStream();
        writeInt(msg, 16 + 4 + 1 + 4 + body.length);
        writeInt(msg, requestId);
        writeInt(msg, 0);
        writeInt(msg, 2013); // OP_MSG
        writeInt(msg, 0);    // flagBits
        msg.write(0);        // section kind 0: body
        writeInt(msg, 4 + body.length);
        msg.writeBytes(body);
        return msg.toByteArray();
    }

    private static void writeCString(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        out.write(0);
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array());
    }
}
