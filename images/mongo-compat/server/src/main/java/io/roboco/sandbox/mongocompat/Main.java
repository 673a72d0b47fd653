package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.MongoServer;
import io.roboco.sandbox.mongocompat.auth.UserStore;
import io.roboco.sandbox.mongocompat.scram.ScramIterations;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * Mongo wire-compatible stand-in: an in-memory {@code mongo-java-server} bound to {@code --bind_ip} /
 * {@code --port} (default 0.0.0.0:27017), behind mongod's access control ({@link AuthenticatingBackend}).
 *
 * <p>As with the official image, {@code MONGO_INITDB_ROOT_USERNAME} / {@code MONGO_INITDB_ROOT_PASSWORD} (or
 * their {@code _FILE} variants) create a {@code root} user in {@code admin} and turn access control on;
 * {@code --auth} turns it on without one. Without either, every client may do everything (mongod's default,
 * with mongod's startup warning). Data lives in memory only. On readiness it prints a line shaped like
 * mongod's {@code "Waiting for connections"} log entry, so log-based wait strategies work unchanged.
 * {@code --setParameter scramIterationCount=N} / {@code scramSHA256IterationCount=N} set the PBKDF2 iterations of new
 * credentials as in mongod ({@link ScramIterations}); other parameters are accepted and ignored.
 *
 * <p>{@code --cds-training} starts on an ephemeral loopback port, talks to itself once (SCRAM included) and
 * exits: the image build runs it to record an AppCDS archive for a faster JVM start.
 */
public final class Main {
    /** What mongod exits with when it cannot listen on its address. */
    static final int EXIT_ADDRESS_IN_USE = 48;

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        String host = "0.0.0.0";
        int port = 27017;
        boolean training = false;
        boolean authFlag = false;
        long ttlSeconds = 60;
        ScramIterations iterations = ScramIterations.DEFAULTS;
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
            } else if (a.equals("--setParameter") && i + 1 < args.length) {
                String parameter = args[++i];
                if (parameter.startsWith("ttlMonitorSleepSecs=")) {
                    ttlSeconds = Long.parseLong(parameter.substring("ttlMonitorSleepSecs=".length()));
                } else {
                    try {
                        iterations = iterations.with(parameter).orElse(iterations); // others: accepted, ignored
                    } catch (IllegalArgumentException e) {
                        System.err.println("error: bad --setParameter " + parameter + ": " + e.getMessage());
                        System.exit(2);
                    }
                }
            } else if (a.equals("--auth")) {
                authFlag = true;
            } else if (a.equals("--cds-training")) {
                training = true;
                host = "127.0.0.1";
                port = 0;
            }
        }

        UserStore users = new UserStore(iterations);
        Optional<String> rootUser = training ? Optional.of("cds") : setting("MONGO_INITDB_ROOT_USERNAME");
        Optional<String> rootPassword = training ? Optional.of("cds-training") : setting("MONGO_INITDB_ROOT_PASSWORD");
        if (rootUser.isPresent() != rootPassword.isPresent()) {
            System.err.println("error: both MONGO_INITDB_ROOT_USERNAME and MONGO_INITDB_ROOT_PASSWORD must be set, or neither");
            System.exit(1);
        }
        if (rootUser.isPresent()) {
            users.add(RootUser.of(rootUser.get(), rootPassword.get(), iterations));
        }
        boolean accessControl = authFlag || rootUser.isPresent();

        MongoServer server = new MongoServer(new AuthenticatingBackend(StandInBackend.create().withTtlMonitor(ttlSeconds), users, accessControl));
        try {
            server.bind(host, port);
        } catch (Exception e) { // the bind's BindException arrives unchecked-thrown, though it is an IOException
            // mongod's own exit code for an address it cannot listen on; without the exit, the event loop's threads
            // would keep a server that listens nowhere running.
            System.err.println("error: cannot listen on " + host + ":" + port + ": " + rootCause(e).getMessage());
            server.shutdownNow();
            System.exit(EXIT_ADDRESS_IN_USE);
        }
        InetSocketAddress bound = server.getLocalAddress();

        if (training) {
            RootUser.selfTest(rootUser.get(), rootPassword.get());
            ping(bound.getPort());
            server.shutdownNow();
            return;
        }

        if (!accessControl) {
            MongodLog.accessControlDisabled();
        }
        MongodLog.waitingForConnections(host, bound.getPort());

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.shutdownNow();
            stopped.countDown();
        }, "shutdown"));
        stopped.await();
    }

    /** {@code NAME} from the environment, or the content of the file {@code NAME_FILE} names (the official image's convention). */
    private static Throwable rootCause(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static Optional<String> setting(String name) throws IOException {
        String value = System.getenv(name);
        if (value != null && !value.isEmpty()) {
            return Optional.of(value);
        }
        String file = System.getenv(name + "_FILE");
        if (file != null && !file.isEmpty()) {
            return Optional.of(Files.readString(Path.of(file), StandardCharsets.UTF_8).strip());
        }
        return Optional.empty();
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
