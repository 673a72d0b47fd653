package io.roboco.sandbox.runtime.kubernetes;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where and how the Kubernetes runtime runs sandboxes.
 *
 * @param namespace      the namespace every sandbox pod (and its NetworkPolicy) lives in
 * @param agentNamespace the namespace of the agents' pods, which each sandbox's NetworkPolicy admits (by the agent's
 *                       label); null: the sandbox namespace
 * @param kubeconfig     a kubeconfig file; null: the client's own discovery ({@code KUBECONFIG}, {@code ~/.kube/config},
 *                       then the pod's service account when the server runs in the cluster)
 * @param startTimeout   how long a pod may take from create to running with an address (scheduling, image pull)
 * @param execTimeout    how long one exec may take
 */
public record KubernetesSettings(
        String namespace, String agentNamespace, Path kubeconfig, Duration startTimeout, Duration execTimeout) {
    /** A DNS-1123 label, what Kubernetes accepts as a namespace name. */
    public static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(120);
    public static final Duration DEFAULT_EXEC_TIMEOUT = Duration.ofSeconds(60);

    public KubernetesSettings {
        Objects.requireNonNull(namespace, "namespace");
        if (!NAMESPACE.matcher(namespace).matches()) {
            throw new IllegalArgumentException("Kubernetes namespace '" + namespace
                    + "' is not a DNS-1123 label (lower-case letters, digits and '-', at most 63)");
        }
        if (agentNamespace != null && !NAMESPACE.matcher(agentNamespace).matches()) {
            throw new IllegalArgumentException(
                    "agents' Kubernetes namespace '" + agentNamespace + "' is not a DNS-1123 label");
        }
        Objects.requireNonNull(startTimeout, "startTimeout");
        Objects.requireNonNull(execTimeout, "execTimeout");
    }

    /** In {@code namespace}, the client's own discovery of the cluster, default timeouts. */
    public static KubernetesSettings of(String namespace) {
        return new KubernetesSettings(namespace, null, null, DEFAULT_START_TIMEOUT, DEFAULT_EXEC_TIMEOUT);
    }

    public KubernetesSettings withKubeconfig(Path file) {
        return new KubernetesSettings(namespace, agentNamespace, file, startTimeout, execTimeout);
    }

    public KubernetesSettings withAgentNamespace(String agents) {
        return new KubernetesSettings(namespace, agents, kubeconfig, startTimeout, execTimeout);
    }

    public KubernetesSettings withTimeouts(Duration start, Duration exec) {
        return new KubernetesSettings(namespace, agentNamespace, kubeconfig, start, exec);
    }

    /** The namespace the agents' pods are in. */
    public String agentsNamespace() {
        return agentNamespace == null ? namespace : agentNamespace;
    }
}
