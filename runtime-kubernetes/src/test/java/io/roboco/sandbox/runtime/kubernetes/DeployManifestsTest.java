package io.roboco.sandbox.runtime.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * deploy/kubernetes/ parsed into the client's model types (a typo in a field name fails here, not at
 * {@code kubectl apply}), and held to the code: the Role grants exactly the calls the runtime makes, the server's pods
 * carry the label sandboxes admit it by, the sandbox NetworkPolicy template is what the runtime makes.
 */
class DeployManifestsTest {
    static final Path DIR = Path.of("..", "deploy", "kubernetes");
    private static KubernetesClient client;
    private static List<HasMetadata> objects;

    @BeforeAll
    static void parse() throws IOException {
        client = new KubernetesClientBuilder().build(); // only parses: never sends a request
        objects = new ArrayList<>();
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(file)) {
                    objects.addAll(client.load(in).items());
                }
            }
        }
    }

    @AfterAll
    static void close() {
        client.close();
    }

    private static <T extends HasMetadata> List<T> all(Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    private static <T extends HasMetadata> T one(Class<T> type) {
        assertThat(all(type)).as(type.getSimpleName()).hasSize(1);
        return all(type).get(0);
    }

    @Test
    void everyManifestParsesAndLivesInTheOneNamespace() {
        assertThat(objects).hasSizeGreaterThanOrEqualTo(11);
        String namespace = one(Namespace.class).getMetadata().getName();
        assertThat(objects)
                .filteredOn(o -> !(o instanceof Namespace)
                        && !(o instanceof ClusterRole)
                        && !o.getKind().equals("ClusterRoleBinding"))
                .allSatisfy(o -> assertThat(o.getMetadata().getNamespace())
                        .as(o.getKind() + " " + o.getMetadata().getName())
                        .isEqualTo(namespace));
    }

    @Test
    void theRoleGrantsExactlyTheCallsTheRuntimeMakes() {
        Role role = one(Role.class);
        assertThat(rules(role.getRules())).isEqualTo(new TreeSet<>(KubernetesContainerRuntime.API_CALLS));
        assertThat(rules(one(ClusterRole.class).getRules()))
                .isEqualTo(new TreeSet<>(KubernetesContainerRuntime.CLUSTER_API_CALLS));
        RoleBinding binding = one(RoleBinding.class);
        assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
        assertThat(binding.getSubjects())
                .singleElement()
                .satisfies(s -> assertThat(s.getName())
                        .isEqualTo(one(ServiceAccount.class).getMetadata().getName()));
    }

    private static Set<String> rules(List<PolicyRule> rules) {
        Set<String> out = new TreeSet<>();
        for (PolicyRule rule : rules) {
            for (String group : rule.getApiGroups()) {
                for (String resource : rule.getResources()) {
                    for (String verb : rule.getVerbs()) {
                        out.add(group + "/" + resource + ":" + verb);
                    }
                }
            }
        }
        return out;
    }

    @Test
    void theServerRunsOnTheClusterRuntimeWithThePostgresStoreAsItsServiceAccount() {
        Deployment deployment = one(Deployment.class);
        var pod = deployment.getSpec().getTemplate();
        assertThat(pod.getSpec().getServiceAccountName())
                .isEqualTo(one(ServiceAccount.class).getMetadata().getName());
        assertThat(pod.getMetadata().getLabels())
                .as("the label every sandbox's NetworkPolicy admits the server by")
                .containsEntry(SandboxNetworkPolicy.SERVER_NAME_LABEL, SandboxNetworkPolicy.SERVER_NAME);
        var container = pod.getSpec().getContainers().get(0);
        Map<String, EnvVar> env = container.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, e -> e));
        assertThat(env.get("ROBOCO_SANDBOX_RUNTIME").getValue()).isEqualTo("kubernetes");
        assertThat(env.get("ROBOCO_SANDBOX_K8S_NAMESPACE")
                        .getValueFrom()
                        .getFieldRef()
                        .getFieldPath())
                .isEqualTo("metadata.namespace");
        Secret secret = one(Secret.class);
        assertThat(container.getEnvFrom())
                .singleElement()
                .satisfies(e -> assertThat(e.getSecretRef().getName())
                        .isEqualTo(secret.getMetadata().getName()));
        assertThat(secret.getStringData().get("ROBOCO_SANDBOX_STATE_URL")).startsWith("jdbc:postgresql://");
        assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(pod.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(container.getResources().getRequests())
                .isEqualTo(container.getResources().getLimits());

        Service service = one(Service.class);
        assertThat(service.getSpec().getSelector())
                .isEqualTo(deployment.getSpec().getSelector().getMatchLabels());
        assertThat(pod.getMetadata().getLabels())
                .containsAllEntriesOf(service.getSpec().getSelector());
    }

    @Test
    void theNetworkPolicyTemplateIsWhatTheRuntimeMakes() {
        NetworkPolicy template = one(NetworkPolicy.class);
        String namespace = template.getMetadata().getNamespace();
        var pod = new PodBuilder()
                .withNewMetadata()
                .withName(template.getMetadata().getName())
                .withNamespace(namespace)
                .endMetadata()
                .build();
        NetworkPolicy made = SandboxNetworkPolicy.of(pod, "dev-1", 5432, KubernetesSettings.of(namespace));
        assertThat(template.getSpec()).isEqualTo(made.getSpec());
    }
}
