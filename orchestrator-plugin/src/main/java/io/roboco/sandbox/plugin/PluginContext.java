package io.roboco.sandbox.plugin;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.ledger.OwnedContainers;
import io.roboco.sandbox.lifecycle.Capacity;
import io.roboco.sandbox.pool.PoolSizes;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.settings.SettingsStore;
import java.time.Clock;
import java.time.Instant;

/**
 * What a {@link PluginExtension} is given when the built plugin starts it: the plugin and the parts it was wired from.
 *
 * @param containers every container this plugin owns and why (the janitor's only source)
 * @param state      the plugin's own state: STARTING until built, RUNNING, STOPPING once closing
 * @param started    when the build began
 */
public record PluginContext(
        SandboxPlugin plugin,
        String instanceId,
        Clock clock,
        ContainerRuntime runtime,
        SettingsStore store,
        EngineRegistry engines,
        ProvisionSettings provisioning,
        PoolSizes poolSizes,
        Capacity capacity,
        OwnedContainers containers,
        Sandboxes sandboxes,
        SandboxEvents events,
        OrchestratorHandle state,
        Instant started) {}
