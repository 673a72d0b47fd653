package io.roboco.sandbox.runtime;

import io.roboco.sandbox.engine.ExecResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How sandbox containers run. One implementation talks to Docker ({@code runtime.docker}); a fake
 * serves unit tests. Both pass {@code ContainerRuntimeContract}. No vendor type crosses this interface.
 *
 * <p>Faults (daemon unreachable, image missing) are {@link ContainerRuntimeException}s with an
 * actionable message; "already gone" on removal is success.
 */
public interface ContainerRuntime extends AutoCloseable {

    /** Checks the daemon answers; throws {@link ContainerRuntimeException} saying how to fix it if not. */
    void ping();

    /**
     * Creates and starts a container: tmpfs data dir, memory / CPU / pids caps, no-new-privileges,
     * all capabilities dropped but those in {@link RunRequest#capabilities()}, labels, network.
     * If start fails after create, the container is removed before the exception is thrown.
     */
    StartedContainer start(RunRequest request);

    /** Runs a command inside a running container and waits for it. */
    ExecResult exec(String containerId, List<String> command, Map<String, String> env);

    /**
     * Runs a command with streams, for what is too large for a string (a dump saved, a dump restored): {@code stdin}
     * (null: none) is fed to the command and closed at its end, so the command sees end of input; the command's
     * stdout goes to {@code stdout} as it arrives (the result's stdout is then empty; its stderr is kept). Waits like
     * {@link #exec}. This default feeds no stdin (it refuses one) and copies a collected stdout; a runtime that
     * can stream overrides it.
     */
    default ExecResult exec(
            String containerId, List<String> command, Map<String, String> env, InputStream stdin, OutputStream stdout) {
        if (stdin != null) {
            throw new ContainerRuntimeException(
                    getClass().getSimpleName() + " cannot feed a command's stdin (exec " + command + ")");
        }
        ExecResult result = exec(containerId, command, env);
        try {
            stdout.write(result.stdout().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new ContainerRuntimeException(
                    "exec " + command + ": could not write its output: " + e.getMessage(), e);
        }
        return new ExecResult(result.exitCode(), "", result.stderr());
    }

    /**
     * {@link #exec(String, List, Map, InputStream, OutputStream)} as {@code user} inside the container (a name or
     * {@code uid:gid}; null: the image's user), for work that must not run as root there (a template's dump and
     * restore). A runtime that cannot choose the user refuses a non-null one rather than run it as root.
     */
    default ExecResult execAs(
            String containerId,
            String user,
            List<String> command,
            Map<String, String> env,
            InputStream stdin,
            OutputStream stdout) {
        if (user != null) {
            throw new ContainerRuntimeException(
                    getClass().getSimpleName() + " cannot run an exec as another user (exec " + command + ")");
        }
        return exec(containerId, command, env, stdin, stdout);
    }

    // --- named volumes (a template's unpacked physical copy) ---------------------------------------

    /**
     * True when {@link #start} accepts {@link RunRequest#volumes()} and {@link #createVolume} / {@link #removeVolume} /
     * {@link #volumes} work. A runtime that cannot (this default; Kubernetes) starts sandboxes from a template's copy by
     * streaming it through an exec instead.
     */
    default boolean mountsVolumes() {
        return false;
    }

    /** Makes an empty named volume carrying {@code labels}; one of that name already there is an error. */
    default void createVolume(String name, Map<String, String> labels) {
        throw new ContainerRuntimeException(getClass().getSimpleName() + " cannot make volume " + name);
    }

    /** Removes the named volume; a missing one is success. Refused while a container mounts it. */
    default void removeVolume(String name) {}

    /** Names of the volumes carrying every given label; a null value matches any value of that key. */
    default List<String> volumes(Map<String, String> labels) {
        return List.of();
    }

    /** The container's state, or empty when it does not exist. */
    Optional<ContainerState> inspect(String containerId);

    /** True when the container exists and runs. */
    default boolean isRunning(String containerId) {
        return inspect(containerId).map(ContainerState::running).orElse(false);
    }

    /** Last {@code lines} lines of the container's stdout+stderr; empty when it is gone. */
    String logTail(String containerId, int lines);

    /** Force-removes the container (and its anonymous volumes). Idempotent: a missing container is success. */
    void remove(String containerId);

    /** Containers (running or not) carrying every given label; a null value matches any value of that key. */
    List<ContainerState> list(Map<String, String> labels);

    /** The host's versions, memory and CPUs; {@link RuntimeInfo#unknown()} where the runtime cannot tell. Throws like {@link #ping()}. */
    default RuntimeInfo info() {
        return RuntimeInfo.unknown();
    }

    /** True when {@code image} is present locally (images are never pulled). */
    default boolean hasImage(String image) {
        return true;
    }

    /** The image's labels (e.g. the local images' recipe hash), empty when it is absent. */
    default Map<String, String> imageLabels(String image) {
        return Map.of();
    }

    /**
     * Lets {@code owner}'s agent reach the container from now on, where the runtime itself enforces who may (Kubernetes: the
     * pod's NetworkPolicy admits the agent's pods); a warm-pool container claimed gets its owner so. A no-op here: on Docker
     * the networks do it ({@link #connect}).
     */
    default void admit(String containerId, String owner) {}

    // --- networks (network mode) -------------------------------------------------------------------

    /**
     * Makes the network unless one of that name exists, and returns it either way (as it is: the caller checks the
     * labels of one it did not make). Two callers making one name at once get one network.
     */
    default NetworkState ensureNetwork(NetworkSpec spec) {
        throw noNetworks("make network " + spec.name());
    }

    /** The network of that name, or empty when there is none. */
    default Optional<NetworkState> inspectNetwork(String name) {
        throw noNetworks("inspect network " + name);
    }

    /** Networks carrying every given label; a null value matches any value of that key. */
    default List<NetworkState> networks(Map<String, String> labels) {
        throw noNetworks("list networks");
    }

    /** Attaches a container (by id or name, ours or another's) to the network; one already attached is success. */
    default void connect(String network, String container) {
        throw noNetworks("attach " + container + " to network " + network);
    }

    /** Detaches a container from the network; one not attached (or gone) is success. */
    default void disconnect(String network, String container) {
        throw noNetworks("detach " + container + " from network " + network);
    }

    /** Removes the network; a missing one is success. Refused while any container is attached. */
    default void removeNetwork(String name) {
        throw noNetworks("remove network " + name);
    }

    private ContainerRuntimeException noNetworks(String what) {
        return new ContainerRuntimeException(
                getClass().getSimpleName() + " cannot " + what + ": it manages no networks; use network mode 'host'");
    }

    @Override
    default void close() {}
}
