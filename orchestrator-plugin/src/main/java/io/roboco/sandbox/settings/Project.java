package io.roboco.sandbox.settings;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A project's Sandbox settings. A project with no {@code services} has not opted in and sees no change.
 *
 * @param services   opted-in engine names, e.g. {@code [postgres, redis]}
 * @param extensions the standing feature set per engine, e.g. {@code {postgres=[pg_trgm]}}
 */
public record Project(String id, String name, List<String> services, Map<String, List<String>> extensions) {
    public Project {
        Objects.requireNonNull(id, "id");
        name = name == null || name.isBlank() ? id : name;
        services = services == null ? List.of() : List.copyOf(services);
        Map<String, List<String>> copy = new TreeMap<>();
        if (extensions != null) {
            extensions.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        }
        extensions = Map.copyOf(copy);
    }

    public boolean optedIn() {
        return !services.isEmpty();
    }

    public List<String> extensionsFor(String service) {
        return extensions.getOrDefault(service, List.of());
    }
}
