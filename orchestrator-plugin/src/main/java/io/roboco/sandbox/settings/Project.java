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
 * @param versions   the major per engine, e.g. {@code {postgres=17}}; an engine not named runs the server's
 *                   configured image
 */
public record Project(String id, String name, List<String> services, Map<String, List<String>> extensions,
                      Map<String, String> versions) {
    public Project {
        Objects.requireNonNull(id, "id");
        name = name == null || name.isBlank() ? id : name;
        services = services == null ? List.of() : List.copyOf(services);
        Map<String, List<String>> copy = new TreeMap<>();
        if (extensions != null) {
            extensions.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        }
        extensions = Map.copyOf(copy);
        versions = versions == null ? Map.of() : Map.copyOf(new TreeMap<>(versions));
    }

    /** A project on the server's configured images. */
    public Project(String id, String name, List<String> services, Map<String, List<String>> extensions) {
        this(id, name, services, extensions, Map.of());
    }

    public boolean optedIn() {
        return !services.isEmpty();
    }

    public List<String> extensionsFor(String service) {
        return extensions.getOrDefault(service, List.of());
    }

    /** The major picked for {@code service}, or empty for the server's configured image. */
    public String versionFor(String service) {
        return versions.getOrDefault(service, "");
    }

    public Project withVersions(Map<String, String> newVersions) {
        return new Project(id, name, services, extensions, newVersions);
    }
}
