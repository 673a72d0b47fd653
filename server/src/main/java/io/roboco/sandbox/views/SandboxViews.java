package io.roboco.sandbox.views;

import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.provision.ServiceInstance;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Live sandboxes as JSON-ready maps: the one shape {@code GET /api/sandboxes} and the MCP
 * {@code list_sandboxes} tool both answer. Never a credential.
 */
public final class SandboxViews {
    private SandboxViews() {
    }

    /** {@code {"sandboxes":[…]}}, ordered by agent. */
    public static Map<String, Object> listing(Collection<AgentSandbox> live, Clock clock) {
        List<AgentSandbox> sorted = new ArrayList<>(live);
        sorted.sort(Comparator.comparing(AgentSandbox::agent));
        List<Map<String, Object>> out = new ArrayList<>();
        for (AgentSandbox sandbox : sorted) {
            out.add(entry(sandbox, clock));
        }
        return Map.of("sandboxes", out);
    }

    public static Map<String, Object> entry(AgentSandbox sandbox, Clock clock) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("agent", sandbox.agent());
        entry.put("project", sandbox.project());
        entry.put("services", List.copyOf(new TreeSet<>(sandbox.services().keySet())));
        List<Map<String, Object>> containers = new ArrayList<>();
        for (ServiceInstance instance : new TreeMap<>(sandbox.services()).values()) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("service", instance.service());
            c.put("container_id", instance.containerId());
            c.put("container_name", instance.containerName());
            c.put("image", instance.image());
            c.put("features", List.copyOf(new TreeSet<>(instance.features())));
            containers.add(c);
        }
        entry.put("containers", containers);
        entry.put("created", sandbox.created().toString());
        entry.put("age_seconds", Math.max(0, Duration.between(sandbox.created(), clock.instant()).toSeconds()));
        return entry;
    }
}
