package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.LiveSession;
import io.roboco.sandbox.engine.ProbeTarget;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The liveness session held per sandbox container ({@link Engine#openLiveSession}): opened off the request's
 * path right after the sandbox is handed out, awaited by the first liveness check, closed when the container goes.
 */
final class LiveSessions {
    private final Map<String, CompletableFuture<LiveSession>> sessions = new ConcurrentHashMap<>();
    private final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sandbox-live-session");
        t.setDaemon(true);
        return t;
    });
    private final Duration openTimeout;

    LiveSessions(Duration openTimeout) {
        this.openTimeout = openTimeout;
    }

    /** Opens the instance's session in the background (a login with the agent's credential). */
    void openLater(Engine engine, ServiceInstance instance) {
        ProbeTarget target = ProbeTarget.of(instance.endpoint(), instance.credentials());
        replace(
                instance.containerId(),
                CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return engine.openLiveSession(target);
                            } catch (Exception e) {
                                throw new CompletionException(e);
                            }
                        },
                        background));
    }

    /** Holds {@code session}, already open (a claim handed over the agent login it made ahead). */
    void hold(ServiceInstance instance, LiveSession session) {
        replace(instance.containerId(), CompletableFuture.completedFuture(session));
    }

    /** The session held for this container, waiting while it is still being opened; null when there is none. */
    LiveSession held(ServiceInstance instance) throws InterruptedException {
        CompletableFuture<LiveSession> future = sessions.get(instance.containerId());
        if (future == null) {
            return null;
        }
        try {
            return future.get(openTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            sessions.remove(instance.containerId(), future);
            return null;
        }
    }

    /** Opens a session now (none held: opening failed before, or the last check broke it) and holds it. */
    LiveSession open(Engine engine, ServiceInstance instance) throws Exception {
        LiveSession session = engine.openLiveSession(ProbeTarget.of(instance.endpoint(), instance.credentials()));
        replace(instance.containerId(), CompletableFuture.completedFuture(session));
        return session;
    }

    /** Forgets and closes the container's session, if any. */
    void drop(String containerId) {
        CompletableFuture<LiveSession> previous = sessions.remove(containerId);
        if (previous != null) {
            previous.thenAccept(LiveSession::close);
        }
    }

    private void replace(String containerId, CompletableFuture<LiveSession> next) {
        CompletableFuture<LiveSession> previous = sessions.put(containerId, next);
        if (previous != null) {
            previous.thenAccept(LiveSession::close);
        }
    }
}
