package io.roboco.sandbox.runtime.kubernetes;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The NetworkPolicy of one sandbox pod (same name): ingress to the service's port only from the owning agent's pods
 * and from the server's, no egress at all (a sandbox database has no one to call). Owned by its pod, so the cluster's
 * garbage collector removes it with the pod even when the runtime's own delete never came.
 *
 * <ul>
 *   <li>The owning agent's pods are those the orchestrator labels {@value #AGENT_LABEL}{@code =<agent slug>} (encoded
 *       as {@link PodLabels#value}), in the agents' namespace ({@link KubernetesSettings#agentsNamespace()}).</li>
 *   <li>The server's pods are those labelled {@value #SERVER_NAME_LABEL}{@code =}{@value #SERVER_NAME} in the sandbox
 *       namespace (deploy/kubernetes/server.yaml sets it).</li>
 *   <li>A warm-pool pod has no agent yet: only the server reaches it until a claim admits its new owner
 *       ({@link #admitting}).</li>
 * </ul>
 */
final class SandboxNetworkPolicy {
    /** The label the orchestrator puts on an agent's pods: the agent's slug. */
    static final String AGENT_LABEL = "roboco.sandbox/agent";

    static final String SERVER_NAME_LABEL = "app.kubernetes.io/name";
    static final String SERVER_NAME = "roboco-sandbox";
    /** The namespace label every namespace carries (Kubernetes 1.21 on). */
    static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

    private SandboxNetworkPolicy() {}

    /** The policy for {@code pod} (as created, with its uid) admitting {@code owner}'s agent (null: nobody yet). */
    static NetworkPolicy of(Pod pod, String owner, int port, KubernetesSettings settings) {
        String name = pod.getMetadata().getName();
        List<NetworkPolicyPeer> from = new ArrayList<>();
        from.add(new NetworkPolicyPeerBuilder()
                .withPodSelector(selector(Map.of(SERVER_NAME_LABEL, SERVER_NAME)))
                .build());
        if (owner != null) {
            from.add(agentPeer(owner, settings));
        }
        NetworkPolicyBuilder policy = new NetworkPolicyBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(settings.namespace())
                .withLabels(pod.getMetadata().getLabels())
                .endMetadata()
                .withNewSpec()
                .withPodSelector(selector(Map.of(PodLabels.POD, name)))
                .withPolicyTypes("Ingress", "Egress")
                .addNewIngress()
                .withFrom(from)
                .addNewPort()
                .withProtocol("TCP")
                .withPort(port > 0 ? new IntOrString(port) : null)
                .endPort()
                .endIngress()
                .endSpec();
        if (pod.getMetadata().getUid() != null) {
            policy.editMetadata().withOwnerReferences(ownedBy(pod)).endMetadata();
        }
        return policy.build();
    }

    /** {@code policy} with {@code owner}'s agent admitted too (a claimed warm-pool pod's new owner). */
    static NetworkPolicy admitting(NetworkPolicy policy, String owner, KubernetesSettings settings) {
        NetworkPolicyPeer peer = agentPeer(owner, settings);
        var ingress = policy.getSpec().getIngress().get(0);
        if (ingress.getFrom().contains(peer)) {
            return policy;
        }
        List<NetworkPolicyPeer> from = new ArrayList<>(ingress.getFrom());
        from.add(peer);
        ingress.setFrom(from);
        return policy;
    }

    private static NetworkPolicyPeer agentPeer(String owner, KubernetesSettings settings) {
        return new NetworkPolicyPeerBuilder()
                .withPodSelector(selector(Map.of(AGENT_LABEL, PodLabels.value(owner))))
                .withNamespaceSelector(selector(Map.of(NAMESPACE_NAME_LABEL, settings.agentsNamespace())))
                .build();
    }

    private static LabelSelector selector(Map<String, String> labels) {
        return new LabelSelectorBuilder().withMatchLabels(labels).build();
    }

    private static OwnerReference ownedBy(Pod pod) {
        return new OwnerReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Pod")
                .withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid())
                .withBlockOwnerDeletion(false)
                .withController(false)
                .build();
    }
}
