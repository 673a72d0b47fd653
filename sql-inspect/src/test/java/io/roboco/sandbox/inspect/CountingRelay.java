package io.roboco.sandbox.inspect;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay on 127.0.0.1 in front of one server, counting the bytes the server sends: how much of a result really
 * reached the client process, measured on the wire rather than guessed from heap figures.
 */
final class CountingRelay implements AutoCloseable {
    private final ServerSocket listener;
    private final String host;
    private final int port;
    private final AtomicLong fromServer = new AtomicLong();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private CountingRelay(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        thread("relay-accept", this::accept);
    }

    static CountingRelay to(String host, int port) throws IOException {
        return new CountingRelay(host, port);
    }

    int port() {
        return listener.getLocalPort();
    }

    long bytesFromServer() {
        return fromServer.get();
    }

    private void accept() {
        try {
            while (!listener.isClosed()) {
                Socket client = listener.accept();
                Socket server = new Socket(host, port);
                sockets.add(client);
                sockets.add(server);
                thread("relay-up", () -> pump(client, server, null));
                thread("relay-down", () -> pump(server, client, fromServer));
            }
        } catch (IOException e) {
            // closed
        }
    }

    private static void pump(Socket from, Socket to, AtomicLong counter) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                if (counter != null) {
                    counter.addAndGet(n);
                }
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // one side closed
        } finally {
            try {
                to.close();
                from.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    private static void thread(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
