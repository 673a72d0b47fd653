package io.roboco.sandbox.runtime.kubernetes;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.RunRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The pod of one sandbox service, locked down as the Docker runtime locks its container: one container, the data
 * directory on a memory-backed {@code emptyDir} capped at the data limit, requests equal to limits (memory and CPU:
 * Guaranteed QoS, never evicted for a neighbour's sake), no privilege escalation, every capability dropped but the
 * engine's, seccomp {@code RuntimeDefault}, no service-account token, no service links, never restarted (a dead
 * sandbox is replaced with new credentials, not revived), our labels.
 *
 * <p>Non-root where the image allows: a request that keeps no capability runs as {@value #NOBODY} with
 * {@code runAsNonRoot}; the engines' images start as root only to chown the data directory and drop to their service
 * user (the capabilities {@link RunRequest#ENTRYPOINT_CAPABILITIES} they keep are exactly what that takes).
 */
final class SandboxPods {
    /** The one container's name in every sandbox pod. */
    static final String CONTAINER = "sandbox";
    /** The data volume's name. */
    static final String DATA = "data";
    /** {@code nobody}, by number. */
    static final long NOBODY = 65534;

    private SandboxPods() {}

    static Pod of(RunRequest request, String namespace) {
        ContainerSpec spec = request.spec();
        Limits limits = request.limits();
        Map<String, String> labels = PodLabels.encode(request.labels());
        labels.put(PodLabels.POD, request.name());
        Map<String, Quantity> resources = new LinkedHashMap<>();
        resources.put("memory", new Quantity(Long.toString(limits.memoryBytes())));
        resources.put("cpu", new Quantity(Math.max(1, limits.nanoCpus() / 1_000_000) + "m"));
        boolean nonRoot = request.capabilities().isEmpty();
        ContainerBuilder container = new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(spec.image())
                .withImagePullPolicy("IfNotPresent")
                .withEnv(env(spec.env()))
                .withResources(new ResourceRequirementsBuilder()
                        .withRequests(resources)
                        .withLimits(resources)
                        .build())
                .withSecurityContext(new SecurityContextBuilder()
                        .withAllowPrivilegeEscalation(false)
                        .withPrivileged(false)
                        .withNewCapabilities()
                        .withDrop("ALL")
                        .withAdd(capabilities(request))
                        .endCapabilities()
                        .withNewSeccompProfile()
                        .withType("RuntimeDefault")
                        .endSeccompProfile()
                        .withRunAsNonRoot(nonRoot ? Boolean.TRUE : null)
                        .withRunAsUser(nonRoot ? NOBODY : null)
                        .withRunAsGroup(nonRoot ? NOBODY : null)
                        .build())
                .addNewVolumeMount()
                .withName(DATA)
                .withMountPath(spec.dataDir())
                .endVolumeMount();
        if (!spec.command().isEmpty()) {
            container.withArgs(spec.command());
        }
        if (spec.port() > 0) {
            container
                    .addNewPort()
                    .withContainerPort(spec.port())
                    .withProtocol("TCP")
                    .endPort();
        }
        Container built = container.build();
        return new PodBuilder()
                .withNewMetadata()
                .withName(request.name())
                .withNamespace(namespace)
                .withLabels(labels)
                .withAnnotations(Map.of(PodLabels.ORIGINAL, PodLabels.original(request.labels())))
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withTerminationGracePeriodSeconds(5L)
                .withNewSecurityContext()
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext()
                .withContainers(built)
                .addNewVolume()
                .withName(DATA)
                .withNewEmptyDir()
                .withMedium("Memory")
                .withSizeLimit(new Quantity(Long.toString(limits.tmpfsBytes())))
                .endEmptyDir()
                .endVolume()
                .endSpec()
                .build();
    }

    private static List<EnvVar> env(Map<String, String> env) {
        List<EnvVar> vars = new ArrayList<>();
        new TreeMap<>(env).forEach((k, v) -> vars.add(new EnvVar(k, v, null)));
        return vars;
    }

    private static List<String> capabilities(RunRequest request) {
        return request.capabilities().stream()
                .map(c -> c.toUpperCase(Locale.ROOT).replaceFirst("^CAP_", ""))
                .sorted()
                .toList();
    }
}
