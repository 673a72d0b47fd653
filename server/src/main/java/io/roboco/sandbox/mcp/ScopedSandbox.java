package io.roboco.sandbox.mcp;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.provision.ServiceInstance;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The sandbox a tool call acts on, as the gate resolved it among the caller's own (the operator's: any).
 * {@code access} holds, per service, the container and the agent's connection values (the {@code env} the
 * agent was handed) when this server holds them: always for a verb set; for a named sandbox when this process made
 * it or re-adopted it after a restart (its credentials are answered once, held in memory, sealed at rest for
 * re-adoption). {@link #toString()} names no credential.
 *
 * @param kind {@code default} (an agent's request_sandbox set) or {@code named}
 */
public record ScopedSandbox(String id, String owner, String kind, List<String> services, Map<String, Access> access) {
    /** One service's container and its agent-side env ({@code ROBOCO_TEST_*}). */
    public record Access(String service, String containerId, Map<String, String> env) {
        @Override
        public String toString() {
            return "Access[" + service + ", " + containerId + ", env=<redacted>]";
        }
    }

    public ScopedSandbox {
        services = List.copyOf(services);
        access = Map.copyOf(access);
    }

    /** An agent's live verb set, with access to every service. */
    static ScopedSandbox of(AgentSandbox set, EngineRegistry registry) {
        Map<String, Access> access = new TreeMap<>();
        for (ServiceInstance i : set.services().values()) {
            access.put(
                    i.service(),
                    new Access(
                            i.service(),
                            i.containerId(),
                            registry.require(i.service()).env(i.endpoint(), i.credentials())));
        }
        return new ScopedSandbox(
                set.id() == null ? "" : set.id(), set.agent(), "default", List.copyOf(access.keySet()), access);
    }

    boolean held() {
        return !access.isEmpty();
    }

    @Override
    public String toString() {
        return "ScopedSandbox[" + id + ", owner=" + owner + ", " + kind + ", services=" + services + ", access held="
                + held() + "]";
    }
}
