package io.roboco.sandbox.runtime.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.roboco.sandbox.runtime.ContainerRuntimeException;

/** Turns fabric8 failures into actionable {@link ContainerRuntimeException}s. */
final class KubernetesFailures {
    private KubernetesFailures() {}

    static ContainerRuntimeException of(String what, KubernetesClientException e) {
        int code = e.getCode();
        String reason = e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage()
                : rootMessage(e);
        if (code == 401 || code == 403) {
            return new ContainerRuntimeException(
                    what + " was refused by the API server (HTTP " + code + ": " + reason
                            + "); give the server's service account the Role in deploy/kubernetes/rbac.yaml",
                    e);
        }
        if (code == 0) {
            return unreachable(what, e);
        }
        return new ContainerRuntimeException(what + " failed: " + reason + " (HTTP " + code + ")", e);
    }

    static ContainerRuntimeException unreachable(String what, Throwable e) {
        return new ContainerRuntimeException(
                what + ": the Kubernetes API server is not reachable (" + rootMessage(e)
                        + "); check KUBECONFIG (or the pod's service account when the server runs in the cluster),"
                        + " or set ROBOCO_SANDBOX_RUNTIME=docker",
                e);
    }

    static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
