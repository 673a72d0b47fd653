package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.LiveSession;
import io.roboco.sandbox.runtime.ContainerRuntime;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a handed-out sandbox still works: one check on the session its agent credential holds open
 * ({@link Engine#openLiveSession}), kept per container in {@link LiveSessions}.
 */
final class Liveness {
    private static final Logger log = LoggerFactory.getLogger(ServiceProvisioner.class);

    private final ContainerRuntime runtime;
    private final LiveSessions sessions;

    Liveness(ContainerRuntime runtime, Duration openTimeout) {
        this.runtime = runtime;
        this.sessions = new LiveSessions(openTimeout);
    }

    /** Opens the instance's session in the background, off the answer's path. */
    void openLater(Engine engine, ServiceInstance instance) {
        sessions.openLater(engine, instance);
    }

    /** Holds {@code session} for {@code instance} (an agent login a claim made ahead); null: opens one later. */
    void hold(Engine engine, ServiceInstance instance, LiveSession session) {
        if (session == null) {
            sessions.openLater(engine, instance);
        } else {
            sessions.hold(instance, session);
        }
    }

    /**
     * The container runs and the service answers on the held session. When the session holds a connection into the
     * container, its answer proves the container runs ({@link LiveSession#provesRunning}) and no runtime inspect is
     * made (a daemon round trip, several ms on a loaded 2-core machine); otherwise the runtime is asked first. One
     * check, no retries; a broken session is dropped, so the next check opens a new one.
     */
    boolean isLive(Engine engine, ServiceInstance instance) {
        try {
            LiveSession session = sessions.held(instance);
            if ((session == null || !session.provesRunning()) && !runtime.isRunning(instance.containerId())) {
                return false;
            }
            if (session == null) {
                session = sessions.open(engine, instance);
            }
            try {
                session.check();
            } catch (Exception e) {
                sessions.drop(instance.containerId());
                throw e;
            }
            return true;
        } catch (Exception e) {
            log.info(
                    "{} sandbox {} failed its liveness check: {}",
                    instance.service(),
                    instance.containerName(),
                    Redaction.of(String.valueOf(e.getMessage()), instance.credentials()));
            return false;
        }
    }

    /** Forgets and closes the container's session (it is going, or was closed on purpose). */
    void drop(String containerId) {
        sessions.drop(containerId);
    }
}
