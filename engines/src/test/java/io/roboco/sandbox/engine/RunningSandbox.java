package io.roboco.sandbox.engine;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** One engine's container started the way the plugin will start it, then awaited; closing removes it. */
public final class RunningSandbox implements AutoCloseable {
    public final Engine engine;
    public final String image;
    public final Credentials credentials;
    public final ContainerSpec spec;
    public final String id;
    public final ProbeTarget target;
    public final ContainerExec exec;
    /** {@code docker run} returned → readiness probe passed. */
    public Duration readyAfterRun;
    /** Before {@code docker run} → readiness probe passed. */
    public Duration readyTotal;

    private RunningSandbox(Engine engine, String image) {
        this.engine = engine;
        this.image = image;
        this.credentials = engine.newCredentials(SecretSource.secure());
        this.spec = engine.containerSpec(
                new SpecRequest(image, credentials, "127.0.0.1", DockerCli.freePort(), DockerCli.MEMORY_BYTES));
        long start = System.nanoTime();
        this.id = DockerCli.run(spec);
        long afterRun = System.nanoTime();
        this.exec = DockerCli.exec(id);
        AtomicLong lastCheck = new AtomicLong();
        boolean[] lastRunning = {true};
        this.target = new ProbeTarget(
                new Endpoint("127.0.0.1", spec.port()),
                credentials,
                () -> {
                    // docker inspect costs a process; ask at most every 500 ms
                    long now = System.nanoTime();
                    if (now - lastCheck.get() > 500_000_000L) {
                        lastCheck.set(now);
                        lastRunning[0] = DockerCli.running(id);
                    }
                    return lastRunning[0];
                },
                () -> DockerCli.logTail(id),
                exec);
        try {
            // What a start waits for, then the admin-credential check readiness() makes (both against the real server).
            Readiness.await(engine.accepting(), target, Duration.ofSeconds(60), Duration.ofMillis(20));
            engine.readiness().check(target);
        } catch (Exception e) {
            String tail = DockerCli.logTail(id);
            DockerCli.remove(id);
            throw new IllegalStateException(
                    engine.name() + " sandbox (" + image + ") not ready: " + e.getMessage() + "; last log lines:\n"
                            + tail + "\ncontainer removed",
                    e);
        }
        long ready = System.nanoTime();
        this.readyAfterRun = Duration.ofNanos(ready - afterRun);
        this.readyTotal = Duration.ofNanos(ready - start);
    }

    public static RunningSandbox start(Engine engine, String image) {
        return new RunningSandbox(engine, image);
    }

    public ProbeTarget withAgentPassword(String password) {
        Credentials c = new Credentials(
                credentials.adminUser(),
                credentials.adminPassword(),
                credentials.user(),
                password,
                credentials.database());
        return target.withCredentials(c);
    }

    @Override
    public void close() {
        DockerCli.remove(id);
    }

    @Override
    public String toString() {
        return engine.name() + " " + image + " ready " + readyTotal.toMillis() + " ms after start ("
                + readyAfterRun.toMillis() + " ms after docker run returned)";
    }
}
