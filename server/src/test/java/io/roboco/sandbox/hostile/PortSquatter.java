package io.roboco.sandbox.hostile;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Another local user who listens on a sandbox's port before the container does, and keeps whatever the server sends.
 * It answers the way a server of that protocol would to get a secret out of the client: Postgres's "send me your
 * password in clear" ({@code AuthenticationCleartextPassword}), Redis's {@code +OK} to anything (an {@code AUTH}
 * included); to Mongo it says nothing and listens.
 */
final class PortSquatter implements AutoCloseable {
    /** Postgres {@code AuthenticationCleartextPassword}: 'R', length 8, code 3. */
    private static final byte[] POSTGRES_CLEARTEXT = {'R', 0, 0, 0, 8, 0, 0, 0, 3};

    private static final byte[] REDIS_OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);

    final String service;
    final int port;
    private final ServerSocket socket;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<ByteArrayOutputStream> received = new CopyOnWriteArrayList<>();

    PortSquatter(String service, int port) throws IOException {
        this.service = service;
        this.port = port;
        this.socket = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::acceptLoop, "squatter-" + service + "-" + port);
        accept.setDaemon(true);
        accept.start();
    }

    int connections() {
        return connections.get();
    }

    /** Everything any client sent, as ISO-8859-1 text (bytes kept one for one). */
    String received() {
        StringBuilder all = new StringBuilder();
        received.forEach(b -> {
            synchronized (b) {
                all.append(b.toString(StandardCharsets.ISO_8859_1)).append('\n');
            }
        });
        return all.toString();
    }

    private void acceptLoop() {
        while (!socket.isClosed()) {
            try {
                Socket client = socket.accept();
                connections.incrementAndGet();
                Thread t = new Thread(() -> serve(client), "squatter-conn-" + port);
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket client) {
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        received.add(kept);
        try (client;
                InputStream in = client.getInputStream()) {
            client.setSoTimeout(10_000);
            byte[] buffer = new byte[8192];
            boolean first = true;
            int n;
            while ((n = in.read(buffer)) > 0) {
                synchronized (kept) {
                    kept.write(buffer, 0, n);
                }
                if (service.equals("postgres") && first) {
                    client.getOutputStream().write(POSTGRES_CLEARTEXT);
                } else if (service.equals("redis")) {
                    client.getOutputStream().write(REDIS_OK);
                }
                first = false;
            }
        } catch (IOException e) {
            // the client gave up or the squatter closed
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
