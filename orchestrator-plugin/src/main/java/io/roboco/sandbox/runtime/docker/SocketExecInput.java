package io.roboco.sandbox.runtime.docker;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Starts a created exec on the daemon's Unix socket directly and feeds it a large input: docker-java's hijacked stream
 * copies stdin 1 KB at a time with a flush after each (≈ 100 MB/s here), where this writes 256 KB at a time and then
 * half-closes the connection, which the daemon passes on to the command as the end of its input (≈ 250-500 MB/s
 * here, loaded). The answer is the daemon's multiplexed stream: 8-byte frame headers (1 stdout, 2 stderr) then the
 * payload. Used only for an input of known length on a {@code unix://} daemon; everything else goes through docker-java.
 */
final class SocketExecInput {
    private static final int CHUNK = 256 * 1024;
    private static final int STDERR_CAP = 64 * 1024;

    private SocketExecInput() {}

    /** What the exec wrote on stderr (capped); its exit code is the caller's to inspect. */
    static String run(Path socket, String execId, InputStream stdin, OutputStream stdout, Duration timeout)
            throws IOException, TimeoutException, InterruptedException {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            String body = "{\"Detach\":false,\"Tty\":false}";
            String request = "POST /exec/" + execId + "/start HTTP/1.1\r\nHost: docker\r\n"
                    + "Content-Type: application/json\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: "
                    + body.length() + "\r\n\r\n" + body;
            writeFully(channel, ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)));
            InputStream in = Channels.newInputStream(channel);
            String status = statusLine(in);
            if (!status.contains(" 101 ") && !status.contains(" 200 ")) {
                throw new IOException("the daemon refused to start exec " + execId + ": " + status);
            }
            ByteArrayOutputStream stderr = new ByteArrayOutputStream();
            CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> demultiplex(in, stdout, stderr));
            byte[] chunk = new byte[CHUNK];
            try {
                for (int n; !reading.isDone() && (n = stdin.read(chunk)) > 0; ) { // done: the command has ended
                    writeFully(channel, ByteBuffer.wrap(chunk, 0, n));
                }
                channel.shutdownOutput();
            } catch (IOException e) {
                // the command stopped reading (it failed, or needs no more): its answer and exit code say why
            }
            try {
                reading.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new IOException(
                        "reading exec " + execId + "'s output failed: "
                                + e.getCause().getMessage(),
                        e);
            }
            return stderr.toString(StandardCharsets.UTF_8);
        }
    }

    private static void writeFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    /** The response's status line; its headers are read up to the blank line that ends them. */
    private static String statusLine(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.length() < 16 * 1024
                && (head.length() < 4 || !head.substring(head.length() - 4).equals("\r\n\r\n"))) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("the daemon closed the connection before answering: " + head);
            }
            head.append((char) c);
        }
        int end = head.indexOf("\r\n");
        return end < 0 ? head.toString() : head.substring(0, end);
    }

    private static void demultiplex(InputStream raw, OutputStream stdout, ByteArrayOutputStream stderr) {
        DataInputStream in = new DataInputStream(raw);
        byte[] header = new byte[8];
        byte[] buffer = new byte[CHUNK];
        try {
            while (true) {
                try {
                    in.readFully(header);
                } catch (EOFException e) {
                    return;
                }
                int length = ByteBuffer.wrap(header, 4, 4).getInt();
                while (length > 0) {
                    int n = in.read(buffer, 0, Math.min(buffer.length, length));
                    if (n < 0) {
                        return;
                    }
                    if (header[0] == 2) {
                        if (stderr.size() < STDERR_CAP) {
                            stderr.write(buffer, 0, Math.min(n, STDERR_CAP - stderr.size()));
                        }
                    } else {
                        stdout.write(buffer, 0, n);
                    }
                    length -= n;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
