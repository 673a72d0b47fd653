package io.roboco.sandbox.mcp;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxState;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The gate's scope: which sandbox a call may act on. An agent reaches its own only: its verb set (no
 * {@code sandbox} argument), or a live record it owns named by id; the operator any live record. Anything
 * else resolves to nothing, so "not yours" and "no such sandbox" are one answer. Access (containers and the agent's
 * connection values) comes from the core's one registry of live sandboxes ({@link Sandboxes#heldServices}), whatever the
 * sandbox's kind; this class keeps no credentials of its own.
 */
final class OwnSandboxes implements Gate.SandboxScope {
    private final SandboxPlugin plugin;
    private final Sandboxes sandboxes;
    private final EngineRegistry registry;
    private final Clock clock;

    OwnSandboxes(SandboxPlugin plugin, Sandboxes sandboxes, Clock clock) {
        this.plugin = plugin;
        this.sandboxes = sandboxes;
        this.registry = plugin.registry();
        this.clock = clock;
    }

    @Override
    public Optional<ScopedSandbox> resolve(Caller caller, String sandboxId) {
        if (sandboxId == null) {
            return caller instanceof Caller.Agent agent
                    ? plugin.sandboxOf(agent.slug()).map(set -> ScopedSandbox.of(set, registry))
                    : Optional.empty();
        }
        Optional<SandboxRecord> record = sandboxes
                .find(sandboxId)
                .filter(r -> r.state(clock.instant()) == SandboxState.LIVE)
                .filter(r ->
                        !(caller instanceof Caller.Agent agent) || r.owner().equals(agent.slug()));
        if (record.isEmpty()) {
            return Optional.empty();
        }
        SandboxRecord r = record.get();
        Map<String, ScopedSandbox.Access> access = new TreeMap<>();
        sandboxes
                .heldServices(r.id())
                .ifPresent(services -> services.values().forEach(i -> access.put(i.service(), access(i))));
        return Optional.of(new ScopedSandbox(r.id(), r.owner(), r.kind().wire(), r.services(), access));
    }

    private ScopedSandbox.Access access(ServiceInstance i) {
        return new ScopedSandbox.Access(
                i.service(), i.containerId(), registry.require(i.service()).env(i.endpoint(), i.credentials()));
    }
}
