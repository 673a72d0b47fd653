package io.roboco.sandbox.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Network;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.NetworkSpec;
import io.roboco.sandbox.runtime.NetworkState;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The network half of {@link DockerContainerRuntime}: bridge networks made with {@code CheckDuplicate} (two makers of one
 * name get one network), inspected by name, joined and left idempotently, removed only when nothing is attached.
 */
final class DockerNetworks {
    /** The bridge driver's option that turns inter-container traffic off on one network. */
    static final String ICC = "com.docker.network.bridge.enable_icc";

    private final DockerClient client;
    private final String dockerHost;

    DockerNetworks(DockerClient client, String dockerHost) {
        this.client = client;
        this.dockerHost = dockerHost;
    }

    NetworkState ensure(NetworkSpec spec) {
        Optional<NetworkState> found = inspect(spec.name());
        if (found.isPresent()) {
            return found.get();
        }
        try {
            client.createNetworkCmd()
                    .withName(spec.name())
                    .withDriver("bridge")
                    .withCheckDuplicate(true)
                    .withInternal(spec.internal())
                    .withLabels(spec.labels())
                    .withOptions(spec.isolated() ? Map.of(ICC, "false") : Map.of())
                    .exec();
        } catch (ConflictException e) {
            // made meanwhile by another caller: inspected below
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "creating network " + spec.name(), e);
        }
        return inspect(spec.name())
                .orElseThrow(() -> new ContainerRuntimeException("Docker network " + spec.name()
                        + " was created but cannot be inspected; check the daemon (docker network ls)"));
    }

    Optional<NetworkState> inspect(String name) {
        try {
            Network network = client.inspectNetworkCmd().withNetworkId(name).exec();
            if (!name.equals(network.getName()) && !network.getId().startsWith(name)) {
                return Optional.empty();
            }
            return Optional.of(state(network));
        } catch (NotFoundException e) {
            return Optional.empty();
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "inspecting network " + name, e);
        }
    }

    List<NetworkState> list(Map<String, String> labels) {
        List<String> filter = new ArrayList<>();
        labels.forEach((k, v) -> filter.add(v == null ? k : k + "=" + v));
        List<Network> listed;
        try {
            var cmd = client.listNetworksCmd();
            if (!filter.isEmpty()) {
                cmd.withFilter("label", filter);
            }
            listed = cmd.exec();
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "listing networks labelled " + labels, e);
        }
        // The listing leaves out the attached containers: each one is inspected.
        List<NetworkState> networks = new ArrayList<>();
        for (Network network : listed) {
            inspect(network.getId()).ifPresent(networks::add);
        }
        return networks;
    }

    void connect(String network, String container) {
        try {
            client.connectToNetworkCmd()
                    .withNetworkId(network)
                    .withContainerId(container)
                    .exec();
        } catch (DockerException e) {
            String message = DockerFailures.daemonMessage(e);
            if (message.toLowerCase(Locale.ROOT).contains("already exists")) {
                return;
            }
            throw new ContainerRuntimeException(
                    "cannot attach container " + container + " to Docker network " + network + ": " + message, e);
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "attaching container " + container + " to network " + network, e);
        }
    }

    void disconnect(String network, String container) {
        try {
            client.disconnectFromNetworkCmd()
                    .withNetworkId(network)
                    .withContainerId(container)
                    .withForce(true)
                    .exec();
        } catch (NotFoundException e) {
            // the container or the network is gone
        } catch (DockerException e) {
            String message = DockerFailures.daemonMessage(e);
            if (!message.toLowerCase(Locale.ROOT).contains("is not connected")) {
                throw new ContainerRuntimeException(
                        "cannot detach container " + container + " from Docker network " + network + ": " + message, e);
            }
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "detaching container " + container + " from network " + network, e);
        }
    }

    void remove(String name) {
        try {
            client.removeNetworkCmd(name).exec();
        } catch (NotFoundException e) {
            // already gone
        } catch (DockerException e) {
            throw new ContainerRuntimeException(
                    "cannot remove Docker network " + name + ": " + DockerFailures.daemonMessage(e)
                            + " (containers are still attached: docker network inspect " + name + ")",
                    e);
        } catch (RuntimeException e) {
            throw DockerFailures.of(dockerHost, "removing network " + name, e);
        }
    }

    private static NetworkState state(Network network) {
        Map<String, Network.ContainerNetworkConfig> attached = network.getContainers();
        return new NetworkState(
                network.getId(),
                network.getName(),
                network.getLabels(),
                attached == null ? Set.of() : attached.keySet());
    }
}
