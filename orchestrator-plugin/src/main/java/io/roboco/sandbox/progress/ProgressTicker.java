package io.roboco.sandbox.progress;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Progress of calls that take over a second (seeds, template restores and saves, checkpoints, rewinds): while a call
 * runs, every {@code every} (the first after {@code every}, so a quick call sends nothing) its sink gets a tick, a
 * step count that only grows and a sentence saying what runs and for how long, with what the call's detail knows
 * (e.g. "restoring template 'big': 23.1 of 54.0 MB read"). The MCP gate sends ticks as progress notifications, the HTTP
 * API as the lines of a streamed answer. One daemon thread for all calls; {@link #close} ends it.
 */
public final class ProgressTicker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ProgressTicker.class);

    /** One progress report: {@code step} 1, 2, 3 …, and what is happening. */
    public record Tick(long step, String message) {}

    /** Where a call's ticks go (a client's session, a streamed answer); a failure to send is logged, not thrown. */
    @FunctionalInterface
    public interface Sink {
        void send(Tick tick) throws Exception;
    }

    /** A call's ticking; closing it stops the ticks, and none is sent after {@code close} returns. */
    public interface Ticking extends AutoCloseable {
        @Override
        void close();
    }

    private final Duration every;
    private final ScheduledExecutorService timer;

    public ProgressTicker(Duration every, String threadName) {
        if (every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("progress interval must be positive: " + every);
        }
        this.every = every;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Ticks for one call of {@code what} (a tool or a route) until the returned {@link Ticking} is closed.
     *
     * @param detail what the call is doing now, when something knows (a template's bytes read); empty otherwise
     */
    public Ticking start(String what, Supplier<Optional<String>> detail, Sink sink) {
        Objects.requireNonNull(sink, "sink");
        long started = System.nanoTime();
        Object lock = new Object();
        boolean[] closed = {false};
        long[] step = {0};
        Runnable tick = () -> {
            synchronized (lock) {
                if (closed[0]) {
                    return;
                }
                long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
                String message = what + " running for " + seconds + " s"
                        + detail.get().map(d -> "; " + d).orElse("");
                try {
                    sink.send(new Tick(++step[0], message));
                } catch (Exception e) {
                    log.debug(
                            "progress of {} not delivered: {}",
                            what,
                            e.getClass().getSimpleName());
                }
            }
        };
        ScheduledFuture<?> ticks;
        try {
            ticks = timer.scheduleAtFixedRate(tick, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException shutDown) {
            return () -> {};
        }
        return () -> {
            ticks.cancel(false);
            synchronized (lock) {
                closed[0] = true;
            }
        };
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
