package io.roboco.sandbox.bench;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.Readiness;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;
import io.roboco.sandbox.provision.PortAllocator;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.StartedContainer;
import java.util.Map;

/**
 * The floor: {@code DockerContainerRuntime.start} of the same image with the same flags (tmpfs, caps, limits,
 * host network), polled by the same readiness probe with the same gap, then the same {@code prepareAgent}.
 * No HTTP, no store, no cache, no audit.
 */
final class RawContender {
    private final ContainerRuntime runtime;
    private final Map<String, String> images;
    private final Map<String, String> labels;
    private final PortAllocator ports;
    private final SecretSource secrets = SecretSource.secure();
    private final ProvisionSettings defaults = ProvisionSettings.defaults("bench");

    RawContender(
            ContainerRuntime runtime, Map<String, String> images, Map<String, String> labels, PortAllocator ports) {
        this.runtime = runtime;
        this.images = images;
        this.labels = labels;
        this.ports = ports;
    }

    /** Log lines a probe sees, as in the provisioner's probe targets (Redis's start probe reads the log). */
    private static final int LOG_TAIL_LINES = 15;

    /** Time to working credentials in ms; the container is removed afterwards (not timed). */
    double once(Engine engine) throws Exception {
        return once(engine, images.get(engine.name()));
    }

    /** {@link #once(Engine)} with another image of the engine (the official-like Postgres baseline). */
    double once(Engine engine, String image) throws Exception {
        Credentials credentials = engine.newCredentials(secrets);
        int port = ports.next();
        RunRequest request = new RunRequest(
                "roboco-bench-raw-" + engine.name() + "-" + secrets.identifier(),
                engine.containerSpec(new SpecRequest(
                        image,
                        credentials,
                        "127.0.0.1",
                        port,
                        Limits.sandboxDefaults().memoryBytes())),
                labels,
                Limits.sandboxDefaults(),
                NetworkMode.host(),
                RunRequest.ENTRYPOINT_CAPABILITIES);
        long t0 = System.nanoTime();
        StartedContainer container = runtime.start(request);
        try {
            ProbeTarget target = new ProbeTarget(
                    new Endpoint("127.0.0.1", port),
                    credentials,
                    () -> runtime.isRunning(container.id()),
                    () -> runtime.logTail(container.id(), LOG_TAIL_LINES),
                    (command, env) -> runtime.exec(container.id(), command, env));
            Readiness.await(engine.accepting(), target, defaults.readyTimeout(), defaults.pollGap());
            engine.prepareAgent(target);
            return (System.nanoTime() - t0) / 1e6;
        } finally {
            runtime.remove(container.id());
        }
    }
}
