package io.roboco.sandbox.runtime.docker;

import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.LogConfig;
import com.github.dockerjava.api.model.Ports;
import com.github.dockerjava.api.model.RestartPolicy;
import com.github.dockerjava.api.model.Volume;
import io.roboco.sandbox.runtime.ContainerRuntimeException;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.LogCap;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The locked-down host configuration of a sandbox container: data dir on tmpfs, memory without swap,
 * CPU and pids caps, no-new-privileges, every capability dropped but the requested ones, not privileged,
 * no binds and no volumes but the request's named ones (a template's unpacked copy), no restart, host mode or a named network (network mode: the back network, its port published on
 * the host's 127.0.0.1 only), and a log capped on the host ({@code json-file}
 * with {@code max-size} / {@code max-file}, whatever the daemon's default driver is).
 */
final class SandboxHostConfig {
    /** Where a network-mode container's port is published on the Docker host. */
    static final String LOOPBACK = "127.0.0.1";

    private SandboxHostConfig() {}

    static HostConfig of(RunRequest request, LogCap logs) {
        Limits limits = request.limits();
        String network = "host";
        if (request.network() instanceof NetworkMode.Named named) {
            network = named.network();
        } else if (request.network() instanceof NetworkMode.Isolated isolated) {
            network = isolated.back();
        }
        // mode=1777: the entrypoint (root with CHOWN/FOWNER) chowns it; a non-root image can still write.
        String tmpfs = "rw,size=" + limits.tmpfsBytes() + ",mode=1777";
        HostConfig config = HostConfig.newHostConfig()
                .withTmpFs(Map.of(request.spec().dataDir(), tmpfs))
                .withMemory(limits.memoryBytes())
                .withMemorySwap(limits.memoryBytes())
                .withNanoCPUs(limits.nanoCpus())
                .withPidsLimit(limits.pidsLimit())
                .withSecurityOpts(List.of("no-new-privileges:true"))
                .withCapDrop(Capability.ALL)
                .withCapAdd(capabilities(request))
                .withPrivileged(false)
                .withNetworkMode(network)
                .withRestartPolicy(RestartPolicy.noRestart())
                .withLogConfig(logConfig(logs));
        if (!request.volumes().isEmpty()) {
            config.withBinds(request.volumes().stream()
                    .map(v -> new Bind(v.name(), new Volume(v.path()), v.readOnly() ? AccessMode.ro : AccessMode.rw))
                    .toList());
        }
        if (request.network() instanceof NetworkMode.Isolated) {
            // Docker picks a free host port; bound to the host's loopback only, the plugin's way in.
            config.withPortBindings(new Ports(ExposedPort.tcp(request.spec().port()), Ports.Binding.bindIp(LOOPBACK)));
        }
        return config;
    }

    /** {@code json-file} keeps {@code docker logs} (the start diagnosis's log tail) working; the caps bound the host's disk. */
    static LogConfig logConfig(LogCap logs) {
        return new LogConfig(
                LogConfig.LoggingType.JSON_FILE,
                Map.of("max-size", Long.toString(logs.maxFileBytes()), "max-file", Integer.toString(logs.maxFiles())));
    }

    private static Capability[] capabilities(RunRequest request) {
        return request.capabilities().stream()
                .sorted()
                .map(name -> {
                    String bare = name.toUpperCase(Locale.ROOT).replaceFirst("^CAP_", "");
                    try {
                        return Capability.valueOf(bare);
                    } catch (IllegalArgumentException e) {
                        throw new ContainerRuntimeException(
                                "unknown Linux capability '" + name + "' for container " + request.name());
                    }
                })
                .toArray(Capability[]::new);
    }
}
