package io.roboco.sandbox.mcp;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The threads the MCP SDK starts for one transport, so that closing the endpoint ends them.
 *
 * <p>mcp-core 2.1.0's {@code HttpServletStreamableServerTransportProvider} makes its idle-session sweeper on a
 * {@code Schedulers.newSingle("streamable-http-server-transport-session-sweeper")} it never disposes: its closing
 * stops the sweep but leaves that non-daemon thread alive, so an embedder's JVM never exits. The scheduler is caught
 * while the transport is built (a Reactor executor decorator, registered only for that moment and matching only the
 * sweeper's name) and disposed by {@link #close()}.
 */
final class SdkThreads implements AutoCloseable {
    static final String SWEEPER = "streamable-http-server-transport-session-sweeper";
    private static final Object BUILDING = new Object();

    private final List<Scheduler> caught;

    private SdkThreads(List<Scheduler> caught) {
        this.caught = caught;
    }

    /** Builds with {@code build}, catching the sweeper schedulers it makes. */
    static <T> Caught<T> catching(Supplier<T> build) {
        List<Scheduler> caught = new ArrayList<>();
        String key = "roboco-sandbox-mcp-" + UUID.randomUUID();
        synchronized (BUILDING) {
            Schedulers.addExecutorServiceDecorator(key, (scheduler, executor) -> {
                if (scheduler.toString().contains(SWEEPER)) {
                    caught.add(scheduler);
                }
                return executor;
            });
            try {
                return new Caught<>(build.get(), new SdkThreads(List.copyOf(caught)));
            } finally {
                Schedulers.removeExecutorServiceDecorator(key);
            }
        }
    }

    /** How many sweeper schedulers were caught (one per transport with a sweep interval). */
    int count() {
        return caught.size();
    }

    /** Ends the caught schedulers' threads. */
    @Override
    public void close() {
        caught.forEach(Scheduler::dispose);
    }

    record Caught<T>(T value, SdkThreads threads) {}
}
