package io.roboco.sandbox.manager;

import io.roboco.sandbox.provision.ServiceInstance;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** One agent's live sandbox set: every opted-in service of its project, as provisioned. */
public record AgentSandbox(String agent, String project, Map<String, ServiceInstance> services, Instant created) {
    public AgentSandbox {
        services = Map.copyOf(services);
    }

    public AgentSandbox with(Map<String, ServiceInstance> more) {
        Map<String, ServiceInstance> all = new TreeMap<>(services);
        all.putAll(more);
        return new AgentSandbox(agent, project, all, created);
    }

    /** The instances for {@code names}, in the order given. */
    public List<ServiceInstance> select(Collection<String> names) {
        return names.stream().map(services::get).toList();
    }

    public List<String> containerIds() {
        return services.values().stream().map(ServiceInstance::containerId).toList();
    }
}
