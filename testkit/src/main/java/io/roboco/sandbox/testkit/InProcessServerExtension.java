package io.roboco.sandbox.testkit;

import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import io.roboco.sandbox.runtime.NetworkState;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A server started in the test's JVM for one test class, and its clean-up: after the class (even when a
 * test failed) the server is closed, every container (and network) labelled with the instance of any server it
 * started is removed from the Docker daemon (the count is printed), and its state directory deleted.
 * Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final InProcessServerExtension<InProcessServer> SERVER =
 *         InProcessServerExtension.startedBeforeAll(stateDir -> new InProcessServer(stateDir, ...));
 * }</pre>
 *
 * <p>The launcher comes from the module that has the server (testkit sits below it); {@link #api()} talks
 * to it with {@link ApiClient}'s test tokens, which the launcher must configure.
 *
 * @param <S> what the launcher returns
 */
public final class InProcessServerExtension<S extends InProcessServerExtension.Server>
        implements BeforeAllCallback, AfterAllCallback {

    /** What the extension needs of a running server. */
    public interface Server extends AutoCloseable {
        int port();

        /** The value of the {@code roboco.sandbox.instance} label on its containers. */
        String instanceId();

        /** Stops it; idempotent, never throws. */
        @Override
        void close();
    }

    /** Starts a server whose state lives in {@code stateDir}. */
    @FunctionalInterface
    public interface Launcher<S> {
        S start(Path stateDir) throws Exception;
    }

    private final Launcher<S> launcher;
    private final boolean eager;
    private final Set<String> instances = new LinkedHashSet<>();
    private Path stateDir;
    private S server;
    private ApiClient api;
    private String owner = "in-process server";

    private InProcessServerExtension(Launcher<S> launcher, boolean eager) {
        this.launcher = launcher;
        this.eager = eager;
    }

    /** Starts the server before the class's {@code @BeforeAll} methods run. */
    public static <S extends Server> InProcessServerExtension<S> startedBeforeAll(Launcher<S> launcher) {
        return new InProcessServerExtension<>(launcher, true);
    }

    /** Starts the server when the test calls {@link #start()} (e.g. after it began capturing logs). */
    public static <S extends Server> InProcessServerExtension<S> startedByTheTest(Launcher<S> launcher) {
        return new InProcessServerExtension<>(launcher, false);
    }

    /** Starts the server unless it runs; returns it. */
    public synchronized S start() {
        if (server == null) {
            try {
                if (stateDir == null) {
                    stateDir = Files.createTempDirectory("roboco-it-").resolve("state");
                }
                server = launcher.start(stateDir);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("the in-process server did not start: " + e, e);
            }
            instances.add(server.instanceId());
            api = new ApiClient(server.port());
        }
        return server;
    }

    /** Closes the server and starts a new one over the same state directory (same instance id, same store). */
    public synchronized S restart() {
        if (server != null) {
            server.close();
            server = null;
        }
        return start();
    }

    /** The running server. */
    public synchronized S server() {
        if (server == null) {
            throw new IllegalStateException("the in-process server is not running: "
                    + (eager ? "it failed to start before the class" : "call start() first"));
        }
        return server;
    }

    /** A client for the running server. */
    public synchronized ApiClient api() {
        server();
        return api;
    }

    public synchronized Path stateDir() {
        return stateDir;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        owner = context.getRequiredTestClass().getSimpleName();
        if (eager) {
            start();
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
        System.out.println(owner + " cleanup removed " + sweep(instances) + " container(s)");
        instances.clear();
        if (stateDir != null) {
            deleteTree(stateDir.getParent());
            stateDir = null;
        }
    }

    /** Removes every container of these instances from the Docker daemon; -1 when the daemon could not be asked. Never throws. */
    static int sweep(Set<String> instanceIds) {
        if (instanceIds.isEmpty()) {
            return 0;
        }
        try (ContainerRuntime docker = DockerContainerRuntime.connect()) {
            int removed = 0;
            for (String instance : instanceIds) {
                List<ContainerState> left =
                        docker.list(Map.of(SandboxLabels.SANDBOX, "1", SandboxLabels.INSTANCE, instance));
                for (ContainerState c : left) {
                    docker.remove(c.id());
                    removed++;
                }
                // Network mode's networks of that instance (the back one, owners' left over), whoever is still
                // attached.
                for (NetworkState n :
                        docker.networks(Map.of(SandboxLabels.SANDBOX, "1", SandboxLabels.INSTANCE, instance))) {
                    n.containers().forEach(c -> docker.disconnect(n.name(), c));
                    docker.removeNetwork(n.name());
                }
            }
            return removed;
        } catch (RuntimeException e) {
            System.err.println("cleanup of instance(s) " + instanceIds + " failed: " + e.getMessage());
            return -1;
        }
    }

    private static void deleteTree(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            List<Path> paths =
                    new ArrayList<>(walk.sorted(Comparator.reverseOrder()).toList());
            for (Path p : paths) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete the test state directory " + root, e);
        }
    }
}
