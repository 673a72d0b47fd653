package io.roboco.sandbox.engine;

import io.roboco.sandbox.engine.mongo.MongoEngine;
import io.roboco.sandbox.engine.mongo.MongoSessions;
import io.roboco.sandbox.engine.postgres.PostgresEngine;
import io.roboco.sandbox.engine.redis.RedisEngine;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;

/**
 * Front door for readiness and liveness probes, so an engine says how it becomes ready in one line:
 * {@code Probes.jdbc(Login.ADMIN)}, {@code Probes.allOf(Probes.running(), Probes.redisPing(Login.AGENT))}.
 *
 * <p>Every probe opens a fresh connection with connect and read timeouts of about a second and
 * closes it again; none of them retries (the {@link Readiness} poller does).
 */
public final class Probes {
    private Probes() {
    }

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
                socket.connect(new InetSocketAddress(target.endpoint().host(), target.endpoint().port()), 1000);
            }
        };
    }

    /** pgjdbc login over TCP to the sandbox's database with {@code login}'s credential, then {@code SELECT 1}. */
    public static ReadinessProbe jdbc(Login login) {
        return target -> PostgresEngine.selectOne(target, login);
    }

    /** Jedis {@code AUTH} with {@code login}'s credential, then {@code PING}. */
    public static ReadinessProbe redisPing(Login login) {
        return target -> RedisEngine.ping(target, login);
    }

    /**
     * mongodb-driver-sync {@code ping} with {@code login}'s credential. Against a wire-compatible server
     * without authentication (the test stand-in) it falls back to an unauthenticated ping and logs
     * one warning; see {@link MongoEngine}.
     */
    public static ReadinessProbe mongoPing(Login login) {
        return target -> MongoSessions.ping(target, login);
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
