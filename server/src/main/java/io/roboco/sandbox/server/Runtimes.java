package io.roboco.sandbox.server;

import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.runtime.kubernetes.KubernetesContainerRuntime;
import io.roboco.sandbox.server.config.RuntimeSettings;
import io.roboco.sandbox.server.config.ServerConfig;

/** The one place the server chooses its container runtime ({@link RuntimeSettings}). */
public final class Runtimes {
    private Runtimes() {}

    /** The runtime {@code config} names, connected (nothing is sent yet). */
    public static ContainerRuntime connect(ServerConfig config) {
        if (config.runtime().kubernetes()) {
            return KubernetesContainerRuntime.connect(
                    config.runtime().kubernetesSettings(DockerContainerRuntime.DEFAULT_EXEC_TIMEOUT));
        }
        return DockerContainerRuntime.connect(
                null, DockerContainerRuntime.DEFAULT_EXEC_TIMEOUT, config.containerLogs());
    }
}
