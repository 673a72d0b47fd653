package io.roboco.sandbox.server.config;

import io.roboco.sandbox.runtime.kubernetes.KubernetesSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Which container runtime runs the sandboxes, chosen here and nowhere else ({@code server.Runtimes.connect}).
 *
 * <ul>
 *   <li>{@code ROBOCO_SANDBOX_RUNTIME} ({@code docker}): {@code docker}, the Docker daemon at {@code DOCKER_HOST} or the
 *       local socket; {@code kubernetes}, a pod per sandbox service in {@code ROBOCO_SANDBOX_K8S_NAMESPACE} of the
 *       cluster {@code KUBECONFIG} names (else {@code ~/.kube/config}, else the pod's service account in the cluster);
 *       the network mode is then the pods' own (setting {@code ROBOCO_SANDBOX_NETWORK} too is refused);</li>
 *   <li>{@code ROBOCO_SANDBOX_K8S_NAMESPACE}: the sandboxes' namespace; required with {@code kubernetes}, refused without;</li>
 *   <li>{@code ROBOCO_SANDBOX_K8S_AGENT_NAMESPACE} (the sandboxes' namespace): where the agents' pods are, which each
 *       sandbox's NetworkPolicy admits by their {@code roboco.sandbox/agent} label;</li>
 *   <li>{@code ROBOCO_SANDBOX_K8S_START_TIMEOUT} ({@code 120s}): how long a pod may take from create to running
 *       (scheduling and the image pull come before the readiness timeout starts).</li>
 * </ul>
 *
 * @param kubeconfig {@code KUBECONFIG} as the server's environment gave it (null: the client's own discovery)
 */
public record RuntimeSettings(
        String kind, String namespace, String agentNamespace, Duration startTimeout, Path kubeconfig) {
    public static final String DOCKER = "docker";
    public static final String KUBERNETES = "kubernetes";

    public RuntimeSettings {
        if (!DOCKER.equals(kind) && !KUBERNETES.equals(kind)) {
            throw new ConfigException(
                    "ROBOCO_SANDBOX_RUNTIME='" + kind + "' is not a runtime; use docker (default) or" + " kubernetes");
        }
        if (KUBERNETES.equals(kind) && namespace == null) {
            throw new ConfigException("ROBOCO_SANDBOX_RUNTIME=kubernetes needs ROBOCO_SANDBOX_K8S_NAMESPACE, the"
                    + " namespace the sandbox pods go in (e.g. roboco-sandbox)");
        }
        if (DOCKER.equals(kind) && (namespace != null || agentNamespace != null)) {
            throw new ConfigException("ROBOCO_SANDBOX_K8S_NAMESPACE / _K8S_AGENT_NAMESPACE apply to the Kubernetes"
                    + " runtime only; set ROBOCO_SANDBOX_RUNTIME=kubernetes, or unset them");
        }
        for (String ns : new String[] {namespace, agentNamespace}) {
            if (ns != null && !KubernetesSettings.NAMESPACE.matcher(ns).matches()) {
                throw new ConfigException("ROBOCO_SANDBOX_K8S_NAMESPACE / _K8S_AGENT_NAMESPACE: '" + ns
                        + "' is not a Kubernetes namespace name (lower-case letters, digits and '-', at most 63)");
            }
        }
        if (startTimeout == null || startTimeout.isNegative() || startTimeout.isZero()) {
            throw new ConfigException("ROBOCO_SANDBOX_K8S_START_TIMEOUT must be a positive duration, e.g. 120s");
        }
    }

    public static RuntimeSettings docker() {
        return new RuntimeSettings(DOCKER, null, null, KubernetesSettings.DEFAULT_START_TIMEOUT, null);
    }

    public static RuntimeSettings fromEnv(Map<String, String> env) {
        String kind = EnvValues.value(env, "ROBOCO_SANDBOX_RUNTIME");
        String kubeconfig = env.get("KUBECONFIG");
        return new RuntimeSettings(
                kind == null ? DOCKER : kind.trim().toLowerCase(Locale.ROOT),
                EnvValues.value(env, "ROBOCO_SANDBOX_K8S_NAMESPACE"),
                EnvValues.value(env, "ROBOCO_SANDBOX_K8S_AGENT_NAMESPACE"),
                EnvValues.duration(env, "ROBOCO_SANDBOX_K8S_START_TIMEOUT", KubernetesSettings.DEFAULT_START_TIMEOUT),
                kubeconfig == null || kubeconfig.isBlank() || kubeconfig.contains(":") ? null : Path.of(kubeconfig));
    }

    public boolean kubernetes() {
        return KUBERNETES.equals(kind);
    }

    /** The Kubernetes runtime's settings (only with {@code kubernetes}). */
    public KubernetesSettings kubernetesSettings(Duration execTimeout) {
        return new KubernetesSettings(namespace, agentNamespace, kubeconfig, startTimeout, execTimeout);
    }
}
