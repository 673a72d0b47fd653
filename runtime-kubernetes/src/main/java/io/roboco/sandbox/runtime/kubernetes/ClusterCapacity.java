package io.roboco.sandbox.runtime.kubernetes;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;

/**
 * How much memory (and how many CPUs) sandboxes may take in the namespace, for the plugin's capacity: the namespace's
 * ResourceQuota when it has one ({@code limits.memory}, else {@code requests.memory}, the smallest over its quotas;
 * sandboxes have requests equal to limits, so either bounds them), else the sum of the nodes' allocatable memory
 * (which needs the optional ClusterRole in deploy/kubernetes/rbac.yaml; without it the capacity is unknown and the
 * plugin falls back to its default or {@code ROBOCO_SANDBOX_MAX_CONTAINERS}).
 */
final class ClusterCapacity {
    record Memory(long bytes, int cpus, String source) {}

    private ClusterCapacity() {}

    static Memory of(KubernetesClient client, String namespace) {
        List<ResourceQuota> quotas =
                client.resourceQuotas().inNamespace(namespace).list().getItems();
        long memory = Long.MAX_VALUE;
        int cpus = Integer.MAX_VALUE;
        for (ResourceQuota quota : quotas) {
            Map<String, Quantity> hard =
                    quota.getSpec() == null || quota.getSpec().getHard() == null
                            ? Map.of()
                            : quota.getSpec().getHard();
            Quantity m = hard.getOrDefault("limits.memory", hard.get("requests.memory"));
            if (m != null) {
                memory = Math.min(memory, m.getNumericalAmount().longValue());
            }
            Quantity c = hard.getOrDefault("limits.cpu", hard.get("requests.cpu"));
            if (c != null) {
                cpus = Math.min(cpus, Math.max(1, c.getNumericalAmount().intValue()));
            }
        }
        if (memory != Long.MAX_VALUE) {
            return new Memory(memory, cpus == Integer.MAX_VALUE ? 0 : cpus, "ResourceQuota of namespace " + namespace);
        }
        try {
            long allocatable = 0;
            int nodeCpus = 0;
            for (Node node : client.nodes().list().getItems()) {
                Map<String, Quantity> a =
                        node.getStatus() == null ? null : node.getStatus().getAllocatable();
                if (a == null) {
                    continue;
                }
                if (a.get("memory") != null) {
                    allocatable += a.get("memory").getNumericalAmount().longValue();
                }
                if (a.get("cpu") != null) {
                    nodeCpus += a.get("cpu").getNumericalAmount().intValue();
                }
            }
            return new Memory(allocatable, nodeCpus, "the nodes' allocatable memory");
        } catch (KubernetesClientException e) {
            return new Memory(0, 0, "unknown (no ResourceQuota, nodes not readable: HTTP " + e.getCode() + ")");
        }
    }
}
