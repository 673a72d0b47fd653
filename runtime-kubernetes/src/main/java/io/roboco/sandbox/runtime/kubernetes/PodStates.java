package io.roboco.sandbox.runtime.kubernetes;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.roboco.sandbox.runtime.ContainerState;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** A pod read as the runtime SPI's {@link ContainerState}: its id and name are the pod's name. */
final class PodStates {
    /** Waiting reasons after which the container will not start by itself (a missing image, a bad spec). */
    static final Set<String> STUCK = Set.of(
            "ErrImagePull",
            "ImagePullBackOff",
            "ErrImageNeverPull",
            "InvalidImageName",
            "CreateContainerConfigError",
            "CreateContainerError",
            "RunContainerError");

    private PodStates() {}

    static ContainerState of(Pod pod) {
        String name = pod.getMetadata().getName();
        ContainerStatus status = containerStatus(pod).orElse(null);
        ContainerStateTerminated terminated = status == null || status.getState() == null
                ? null
                : status.getState().getTerminated();
        boolean running = "Running".equals(phase(pod))
                && status != null
                && status.getState() != null
                && status.getState().getRunning() != null;
        String image = pod.getSpec() == null || pod.getSpec().getContainers().isEmpty()
                ? ""
                : pod.getSpec().getContainers().get(0).getImage();
        return new ContainerState(
                name,
                name,
                image,
                running,
                describe(pod),
                running || terminated == null ? null : terminated.getExitCode(),
                terminated != null && "OOMKilled".equals(terminated.getReason()),
                labels(pod),
                created(pod),
                Set.of());
    }

    static String phase(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getPhase() == null
                ? "Pending"
                : pod.getStatus().getPhase();
    }

    static Optional<ContainerStatus> containerStatus(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return Optional.empty();
        }
        return pod.getStatus().getContainerStatuses().stream()
                .filter(s -> SandboxPods.CONTAINER.equals(s.getName()))
                .findFirst();
    }

    /** The container runs and the pod has its address. */
    static boolean running(Pod pod) {
        return "Running".equals(phase(pod))
                && address(pod) != null
                && containerStatus(pod)
                        .map(s -> s.getState() != null && s.getState().getRunning() != null)
                        .orElse(false);
    }

    /** The container ran and ended (or the pod failed as a whole). */
    static boolean ended(Pod pod) {
        String phase = phase(pod);
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /** Why the container waits and will not start by itself, or empty. */
    static Optional<ContainerStateWaiting> stuck(Pod pod) {
        return containerStatus(pod)
                .map(s -> s.getState() == null ? null : s.getState().getWaiting())
                .filter(w -> STUCK.contains(w.getReason()));
    }

    static String address(Pod pod) {
        if (pod.getStatus() == null) {
            return null;
        }
        String ip = pod.getStatus().getPodIP();
        return ip == null || ip.isBlank() ? null : ip;
    }

    /** "Running", "Pending (ErrImagePull: ...)", "Failed (exit code 3)", "Pending (Unschedulable: 0/3 nodes ...)". */
    static String describe(Pod pod) {
        String phase = phase(pod);
        Optional<ContainerStatus> status = containerStatus(pod);
        if (status.isPresent() && status.get().getState() != null) {
            var state = status.get().getState();
            if (state.getTerminated() != null) {
                ContainerStateTerminated t = state.getTerminated();
                return phase + " (exit code " + t.getExitCode() + (t.getReason() == null ? "" : ", " + t.getReason())
                        + ")";
            }
            if (state.getWaiting() != null && state.getWaiting().getReason() != null) {
                ContainerStateWaiting w = state.getWaiting();
                return phase + " (" + w.getReason() + (w.getMessage() == null ? "" : ": " + w.getMessage()) + ")";
            }
        }
        List<PodCondition> conditions =
                pod.getStatus() == null || pod.getStatus().getConditions() == null
                        ? List.of()
                        : pod.getStatus().getConditions();
        for (PodCondition c : conditions) {
            if ("PodScheduled".equals(c.getType()) && "False".equals(c.getStatus())) {
                return phase + " (" + c.getReason() + (c.getMessage() == null ? "" : ": " + c.getMessage()) + ")";
            }
        }
        return phase;
    }

    static Map<String, String> labels(Pod pod) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String original = annotations == null ? null : annotations.get(PodLabels.ORIGINAL);
        if (original != null) {
            try {
                return PodLabels.original(original);
            } catch (JsonProcessingException e) {
                // an annotation someone edited: fall back to the labels
            }
        }
        Map<String, String> labels = new HashMap<>(
                pod.getMetadata().getLabels() == null
                        ? Map.of()
                        : pod.getMetadata().getLabels());
        labels.remove(PodLabels.POD);
        return labels;
    }

    static long created(Pod pod) {
        String stamp = pod.getMetadata().getCreationTimestamp();
        if (stamp != null && !stamp.isBlank()) {
            try {
                return Instant.parse(stamp).getEpochSecond();
            } catch (DateTimeParseException e) {
                // fall through to our own label
            }
        }
        String label = labels(pod).get("roboco.sandbox.created");
        try {
            return label == null ? 0 : Long.parseLong(label);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
