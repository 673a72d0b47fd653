package io.roboco.sandbox.engine;

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
                        1000);
            }
        };
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
