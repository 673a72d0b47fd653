package io.roboco.sandbox.mcp;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.settings.ContainerRef;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;

import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gate's scope: which sandbox a call may act on. An agent reaches its own only: its verb set (no
 * {@code sandbox} argument), or a live record it owns named by id; the operator any live record. Anything
 * else resolves to nothing, so "not yours" and "no such sandbox" are one answer. A named sandbox's access comes from
 * what its MCP create answered, else from the services the sandbox book holds (made since this start, through MCP
 * or HTTP, or re-adopted after a restart).
 */
final class OwnSandboxes implements Gate.SandboxScope {
    private final SandboxPlugin plugin;
    private final EngineRegistry registry;
    private final Clock clock;
    /** Named sandbox id → its access, as its create answered it. Forgotten when the record is no longer live. */
    private final Map<String, Map<String, ScopedSandbox.Access>> created = new ConcurrentHashMap<>();

    OwnSandboxes(SandboxPlugin plugin, Clock clock) {
        this.plugin = plugin;
        this.registry = plugin.registry();
        this.clock = clock;
    }

    @Override
    public Optional<ScopedSandbox> resolve(Caller caller, String sandboxId) {
        if (sandboxId == null) {
            return caller instanceof Caller.Agent agent
                    ? plugin.sandboxOf(agent.slug()).map(set -> ScopedSandbox.of(set, registry)) : Optional.empty();
        }
        Optional<SandboxRecord> record = plugin.sandboxes().flatMap(s -> s.find(sandboxId))
                .filter(r -> r.state(clock.instant()) == SandboxState.LIVE)
                .filter(r -> !(caller instanceof Caller.Agent agent) || r.owner().equals(agent.slug()));
        if (record.isEmpty()) {
            created.remove(sandboxId);
            return Optional.empty();
        }
        SandboxRecord r = record.get();
        if (r.kind() == SandboxRecord.Kind.DEFAULT) {
            Optional<AgentSandbox> set = plugin.sandboxOf(r.owner()).filter(s -> r.id().equals(s.id()));
            if (set.isPresent()) {
                return Optional.of(ScopedSandbox.of(set.get(), registry));
            }
        }
        Map<String, ScopedSandbox.Access> access = created.get(r.id());
        if (access == null) {
            access = held(r.id());
        }
        return Optional.of(new ScopedSandbox(r.id(), r.owner(), r.kind().wire(), r.services(), access));
    }

    /** A named sandbox's access from the services the sandbox book holds (made since the start, or re-adopted); else none. */
    private Map<String, ScopedSandbox.Access> held(String sandboxId) {
        Map<String, ScopedSandbox.Access> access = new java.util.TreeMap<>();
        plugin.sandboxes().flatMap(s -> s.book().namedServices(sandboxId)).ifPresent(services -> services.values().forEach(i ->
                access.put(i.service(), new ScopedSandbox.Access(i.service(), i.containerId(),
                        registry.require(i.service()).env(i.endpoint(), i.credentials())))));
        return access;
    }

    /** A named sandbox this endpoint created: its access, for inspection and for answering the same request again. */
    void remember(Sandboxes.CreateOutcome.Created c) {
        Map<String, String> containers = new java.util.HashMap<>();
        for (ContainerRef ref : c.record().containers()) {
            containers.put(ref.service(), ref.containerId());
        }
        created.put(c.record().id(), ScopedSandbox.access(c.services(), containers));
    }

    void forget(String sandboxId) {
        created.remove(sandboxId);
    }
}
