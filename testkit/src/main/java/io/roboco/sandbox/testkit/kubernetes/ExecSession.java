package io.roboco.sandbox.testkit.kubernetes;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One {@code pods/exec} websocket ({@code v4.channel.k8s.io}): runs the command in the pod's Docker container, sends
 * its stdout and stderr as frames on channels 1 and 2 (at most {@value #FRAME} bytes each), then the status on channel
 * 3 ({@code Success}, or {@code Failure} with reason {@code NonZeroExitCode} and the code) and closes. Input frames
 * (channel 0) are the command's stdin; v4 has no end of input, so a client bounds what its command reads.
 */
final class ExecSession extends WebSocketListener {
    static final int FRAME = 32 * 1024;
    private static final byte[] EOF = new byte[0];

    private final DockerClient docker;
    private final String container;
    private final List<String> command;
    private final boolean stdin;
    private final ExecutorService executor;
    private final LinkedBlockingQueue<byte[]> input = new LinkedBlockingQueue<>();

    ExecSession(DockerClient docker, String container, List<String> command, boolean stdin, ExecutorService executor) {
        this.docker = docker;
        this.container = container;
        this.command = command;
        this.stdin = stdin;
        this.executor = executor;
    }

    @Override
    public void onOpen(WebSocket ws, Response response) {
        executor.execute(() -> run(ws));
    }

    @Override
    public void onMessage(WebSocket ws, ByteString bytes) {
        received(bytes.toByteArray());
    }

    @Override
    public void onMessage(WebSocket ws, byte[] bytes) {
        received(bytes);
    }

    @Override
    public void onMessage(WebSocket ws, String text) {
        received(text.getBytes(StandardCharsets.UTF_8));
    }

    private void received(byte[] frame) {
        if (frame.length > 1 && frame[0] == 0) {
            input.add(Arrays.copyOfRange(frame, 1, frame.length));
        }
    }

    @Override
    public void onClosing(WebSocket ws, int code, String reason) {
        input.add(EOF);
    }

    @Override
    public void onClosed(WebSocket ws, int code, String reason) {
        input.add(EOF);
    }

    @Override
    public void onFailure(WebSocket ws, Throwable t, Response response) {
        input.add(EOF);
    }

    private void run(WebSocket ws) {
        try {
            String execId = docker.execCreateCmd(container)
                    .withCmd(command.toArray(String[]::new))
                    .withAttachStdin(stdin)
                    .withAttachStdout(true)
                    .withAttachStderr(true)
                    .exec()
                    .getId();
            var start = docker.execStartCmd(execId);
            if (stdin) {
                start = start.withStdIn(new QueueInput());
            }
            start.exec(new ResultCallback.Adapter<Frame>() {
                        @Override
                        public void onNext(Frame frame) {
                            int channel = frame.getStreamType() == StreamType.STDERR ? 2 : 1;
                            send(ws, channel, frame.getPayload());
                        }
                    })
                    .awaitCompletion(10, TimeUnit.MINUTES);
            Long code = docker.inspectExecCmd(execId).exec().getExitCodeLong();
            input.add(EOF);
            String status = code != null && code == 0
                    ? "{\"metadata\":{},\"status\":\"Success\"}"
                    : "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command terminated with non-zero exit code:"
                            + " exit status " + code + "\",\"reason\":\"NonZeroExitCode\",\"details\":{\"causes\":"
                            + "[{\"reason\":\"ExitCode\",\"message\":\"" + code + "\"}]}}";
            send(ws, 3, status.getBytes(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure(ws, "interrupted");
        } catch (RuntimeException e) {
            failure(ws, String.valueOf(e.getMessage()).replace("\"", "'"));
        } finally {
            ws.close(1000, "");
        }
    }

    private static void failure(WebSocket ws, String message) {
        String status = "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"" + message.replace("\\", "/")
                + "\",\"reason\":\"InternalError\"}";
        send(ws, 3, status.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(WebSocket ws, int channel, byte[] payload) {
        if (payload.length == 0) {
            return;
        }
        for (int off = 0; off < payload.length; off += FRAME) {
            int n = Math.min(FRAME, payload.length - off);
            byte[] frame = new byte[n + 1];
            frame[0] = (byte) channel;
            System.arraycopy(payload, off, frame, 1, n);
            ws.send(frame);
        }
    }

    /** The websocket's input frames as a stream; ends when the socket does or the command finished. */
    private final class QueueInput extends InputStream {
        private byte[] current = new byte[0];
        private int pos;
        private boolean ended;

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (pos >= current.length) {
                if (ended) {
                    return -1;
                }
                try {
                    byte[] next = input.take();
                    if (next == EOF) {
                        ended = true;
                        return -1;
                    }
                    current = next;
                    pos = 0;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
            int n = Math.min(len, current.length - pos);
            System.arraycopy(current, pos, b, off, n);
            pos += n;
            return n;
        }
    }
}
