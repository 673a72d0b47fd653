package io.roboco.sandbox.runtime.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Collects a multiplexed stream: stdout and stderr apart, and both in arrival order. */
final class FrameCollector extends ResultCallback.Adapter<Frame> {
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final ByteArrayOutputStream combined = new ByteArrayOutputStream();

    @Override
    public synchronized void onNext(Frame frame) {
        byte[] payload = frame.getPayload();
        if (payload == null) {
            return;
        }
        (frame.getStreamType() == com.github.dockerjava.api.model.StreamType.STDERR ? stderr : stdout).writeBytes(payload);
        combined.writeBytes(payload);
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
