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
 * else resolves to nothing, so "not yours" and "no such sandbox" are one answer. Also keeps, for this
 * process's life, the access to named sandboxes created through MCP (their credentials are answered once).
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
        return Optional.of(new ScopedSandbox(r.id(), r.owner(), r.kind().wire(), r.services(),
                created.getOrDefault(r.id(), Map.of())));
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
