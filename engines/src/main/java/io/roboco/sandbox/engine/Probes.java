package io.roboco.sandbox.engine;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;

/**
 * Front door for the probes every engine can use, so an engine says how it becomes ready in one line:
 * {@code Probes.allOf(Probes.running(), ownDriverProbe)}. A probe that needs a driver (pgjdbc, Jedis,
 * mongodb-driver) lives in its engine's package, so adding an engine never edits this class.
 *
 * <p>Every probe opens a fresh connection with connect and read timeouts of about a second and
 * closes it again; none of them retries (the {@link Readiness} poller does).
 */
public final class Probes {
    private static final int TIMEOUT_MS = 1000;

    private Probes() {}

    /** Passes while the container runs; fails fast (no network) once it has stopped. */
    public static ReadinessProbe running() {
        return target -> {
            if (!target.running().getAsBoolean()) {
                throw new IllegalStateException("container is not running");
            }
        };
    }

    /**
     * Passes when the endpoint accepts a TCP connection (closed at once). A cheap gate in front of a driver
     * probe whose failure is expensive: a mongodb-driver client on a closed port spends up to its server
     * selection timeout (a second) and a monitor thread before it fails.
     */
    public static ReadinessProbe tcpOpen() {
        return target -> {
            try (Socket socket = new Socket()) {
                socket.connect(
                        new InetSocketAddress(
                                target.endpoint().host(), target.endpoint().port()),
                        TIMEOUT_MS);
            }
        };
    }

    /** Reads a server's reply from its stream: returns when it is the reply wanted, throws saying why otherwise. */
    @FunctionalInterface
    public interface Reply {
        void read(DataInputStream in) throws IOException;
    }

    /**
     * One question and its reply on a fresh connection to {@code endpoint} (connect and each read time out after a
     * second), closed after: how an engine asks whether a server accepts sessions without logging in.
     */
    public static void ask(Endpoint endpoint, byte[] question, Reply reply) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            out.write(question);
            out.flush();
            reply.read(new DataInputStream(socket.getInputStream()));
        }
    }

    /** Passes when every probe passes, checked in order; the first failure is the probe's failure. */
    public static ReadinessProbe allOf(ReadinessProbe... probes) {
        List<ReadinessProbe> all = List.of(probes);
        return target -> {
            for (ReadinessProbe probe : all) {
                probe.check(target);
            }
        };
    }
}
