package io.roboco.sandbox.views;

import io.roboco.sandbox.lifecycle.Capacity;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.plugin.SandboxDecision;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.settings.ContainerRef;
import io.roboco.sandbox.settings.SandboxRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Sandboxes as JSON-ready maps: the shapes {@code GET /api/sandboxes} (records, {@link #record}) and the MCP
 * {@code list_sandboxes} tool ({@link #listing}) answer. Never a credential, except {@link #created}: the one
 * answer that carries a named sandbox's credentials.
 */
public final class SandboxViews {
    private SandboxViews() {}

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
            c.put("from_pool", instance.fromPool());
            containers.add(c);
        }
        entry.put("containers", containers);
        entry.put("created", sandbox.created().toString());
        entry.put(
                "age_seconds",
                Math.max(0, Duration.between(sandbox.created(), clock.instant()).toSeconds()));
        return entry;
    }

    /**
     * A record as lists show it: today's fields (agent, project, services, containers, created, age_seconds) and the
     * record's (id, owner, name, kind, labels, state, expires, …). A verb set's features come from the live cache.
     */
    public static Map<String, Object> record(SandboxRecord r, Instant now, SandboxManager manager) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("id", r.id());
        v.put("owner", r.owner());
        v.put("agent", r.owner());
        v.put("project", r.project());
        v.put("name", r.name());
        v.put("kind", r.kind().wire());
        v.put("labels", new TreeMap<>(r.labels()));
        v.put("state", r.state(now).wire());
        v.put("services", List.copyOf(new TreeSet<>(r.services())));
        AgentSandbox cached = manager.held(r.id()).orElse(null);
        List<Map<String, Object>> containers = new ArrayList<>();
        for (ContainerRef c : r.containers()) {
            Map<String, Object> cv = new LinkedHashMap<>();
            cv.put("service", c.service());
            cv.put("container_id", c.containerId());
            cv.put("container_name", c.containerName());
            cv.put("image", c.image());
            ServiceInstance live = cached == null ? null : cached.services().get(c.service());
            cv.put("features", live == null ? c.features() : List.copyOf(new TreeSet<>(live.features())));
            cv.put("from_pool", c.fromPool());
            cv.put("major", c.major());
            cv.put("seed", c.seed());
            containers.add(cv);
        }
        v.put("containers", containers);
        v.put("created", r.created().toString());
        v.put("age_seconds", Math.max(0, Duration.between(r.created(), now).toSeconds()));
        Instant expires = cached != null && cached.expires() != null ? cached.expires() : r.expires();
        v.put("expires", expires.toString());
        v.put("expires_in_seconds", Duration.between(now, expires).toSeconds());
        v.put("max_expires", r.maxExpires().toString());
        v.put("deleted", r.deleted() == null ? null : r.deleted().toString());
        v.put("deleted_reason", r.deletedReason());
        v.put("instance", r.instance());
        return v;
    }

    /** The answer to a create: the record and, per service, its credentials (the only place they ever appear). */
    public static Map<String, Object> created(SandboxRecord r, List<SandboxDecision.Grant> grants) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("id", r.id());
        v.put("owner", r.owner());
        v.put("project", r.project());
        v.put("name", r.name());
        v.put("labels", new TreeMap<>(r.labels()));
        v.put("created", r.created().toString());
        v.put("expires", r.expires().toString());
        v.put("max_expires", r.maxExpires().toString());
        List<Map<String, Object>> services = new ArrayList<>();
        for (SandboxDecision.Grant g : grants) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("service", g.service());
            s.put("env", new TreeMap<>(g.env()));
            if (g.featuresKey() != null) {
                s.put(g.featuresKey(), g.features());
            }
            services.add(s);
        }
        v.put("services", services);
        return v;
    }

    public static Map<String, Object> capacity(Capacity capacity) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("used", capacity.used());
        v.put("max", capacity.limited() ? capacity.max() : null);
        return v;
    }
}
