package io.roboco.sandbox.manager;

import io.roboco.sandbox.settings.Project;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One {@code request_sandbox} call after the guards passed.
 *
 * @param services the services asked for (a subset of the project's set; empty means all of it)
 * @param features per-call features per service, on top of the project's standing set
 */
public record EnsureRequest(String agent, Project project, List<String> services, Map<String, Set<String>> features) {
    public EnsureRequest {
        services = services == null || services.isEmpty() ? List.copyOf(project.services()) : List.copyOf(services);
        features = features == null ? Map.of() : Map.copyOf(features);
    }

    /** Standing plus per-call features for one service. */
    public Set<String> featuresFor(String service) {
        Set<String> all = new java.util.TreeSet<>(project.extensionsFor(service));
        all.addAll(features.getOrDefault(service, Set.of()));
        return all;
    }
}
