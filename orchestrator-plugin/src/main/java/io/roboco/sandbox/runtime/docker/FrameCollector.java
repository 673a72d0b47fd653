package io.roboco.sandbox.runtime.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Collects a multiplexed stream: stdout and stderr apart, and both in arrival order. */
final class FrameCollector extends ResultCallback.Adapter<Frame> {
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final ByteArrayOutputStream combined = new ByteArrayOutputStream();
    /** Where stdout goes when it is streamed (null: collected here). */
    private final OutputStream stdoutSink;

    private volatile Throwable error;

    FrameCollector() {
        this(null);
    }

    /** Streams stdout to {@code stdoutSink} instead of collecting it; stderr is collected either way. */
    FrameCollector(OutputStream stdoutSink) {
        this.stdoutSink = stdoutSink;
    }

    @Override
    public synchronized void onNext(Frame frame) {
        byte[] payload = frame.getPayload();
        if (payload == null) {
            return;
        }
        if (frame.getStreamType() == StreamType.STDERR) {
            stderr.writeBytes(payload);
            combined.writeBytes(payload);
        } else if (stdoutSink != null) {
            try {
                stdoutSink.write(payload);
            } catch (IOException e) {
                onError(e);
            }
        } else {
            stdout.writeBytes(payload);
            combined.writeBytes(payload);
        }
    }

    /** Keeps the failure for the caller instead of docker-java's ERROR log line (a 404 here is routine). */
    @Override
    public void onError(Throwable throwable) {
        error = throwable;
        onComplete();
    }

    /** Rethrows a failure the stream reported, after {@code awaitCompletion}. */
    void throwIfFailed() {
        Throwable t = error;
        if (t instanceof RuntimeException re) {
            throw re;
        }
        if (t != null) {
            throw new IllegalStateException(t.getMessage(), t);
        }
    }

    synchronized String stdout() {
        return stdout.toString(StandardCharsets.UTF_8);
    }

    synchronized String stderr() {
        return stderr.toString(StandardCharsets.UTF_8);
    }

    synchronized String combined() {
        return combined.toString(StandardCharsets.UTF_8);
    }
}
