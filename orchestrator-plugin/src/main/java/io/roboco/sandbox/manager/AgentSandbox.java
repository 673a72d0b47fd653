package io.roboco.sandbox.manager;

import io.roboco.sandbox.provision.ServiceInstance;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One agent's live sandbox set: every opted-in service of its project, as provisioned.
 *
 * @param id      the sandbox record's id ({@code sbx_…}); empty when the manager keeps no records
 * @param expires when the set expires (its record's expiry, which slides with use); null for never
 */
public record AgentSandbox(
        String agent,
        String project,
        Map<String, ServiceInstance> services,
        Instant created,
        String id,
        Instant expires) {
    public AgentSandbox {
        services = Map.copyOf(services);
        id = id == null ? "" : id;
    }

    /** A set without a record (no lifecycle bookkeeping): it never expires. */
    public AgentSandbox(String agent, String project, Map<String, ServiceInstance> services, Instant created) {
        this(agent, project, services, created, "", null);
    }

    public AgentSandbox with(Map<String, ServiceInstance> more) {
        Map<String, ServiceInstance> all = new TreeMap<>(services);
        all.putAll(more);
        return new AgentSandbox(agent, project, all, created, id, expires);
    }

    public AgentSandbox withExpires(Instant newExpires) {
        return new AgentSandbox(agent, project, services, created, id, newExpires);
    }

    /** True once {@code now} has reached the expiry. */
    public boolean expiredAt(Instant now) {
        return expires != null && !now.isBefore(expires);
    }

    /** The instances for {@code names}, in the order given. */
    public List<ServiceInstance> select(Collection<String> names) {
        return names.stream().map(services::get).toList();
    }

    public List<String> containerIds() {
        return services.values().stream().map(ServiceInstance::containerId).toList();
    }
}
