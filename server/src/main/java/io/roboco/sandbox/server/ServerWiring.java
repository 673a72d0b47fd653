package io.roboco.sandbox.server;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.plugin.SandboxPluginBuilder;
import io.roboco.sandbox.pool.PoolSizes;
import io.roboco.sandbox.progress.TemplateTraffic;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.server.config.LifecycleConfig;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.template.DirectoryTemplateStore;
import java.time.Clock;

/** The server's configuration, section by section, as builder options: the one wiring an embedder also uses. */
final class ServerWiring {
    private ServerWiring() {}

    static SandboxPluginBuilder builder(
            ServerConfig config,
            StateDir state,
            ContainerRuntime runtime,
            EngineRegistry registry,
            SettingsStore store,
            Clock clock,
            SecretSource secrets) {
        SandboxPluginBuilder builder = SandboxPlugin.builder()
                .instanceId(state.instanceId())
                .runtime(runtime)
                .engines(registry)
                .store(store)
                .clock(clock)
                .secrets(secrets)
                .closeVerb(SandboxServer.SHUTDOWN_VERB)
                .announceStop();
        provisioning(builder, config);
        lifecycle(builder, config.lifecycle());
        builder.warmPool(new PoolSizes(config.poolKeys(), config.seededPoolSize()))
                // Saved templates: <state>/templates/<project>/<name>.sql + <name>.json (+ <name>.datadir.tar, the
                // physical copy), capped per project; read through TemplateTraffic, which tells progress reports how
                // far a restore or a save has got.
                .templates(new TemplateTraffic(new DirectoryTemplateStore(
                        state.path().resolve("templates"),
                        config.data().templates(),
                        config.data().physicalCopies(),
                        config.data().physicalMinDump())));
        if (config.restart().readopt()) {
            builder.readoption(config.secretKeyFile());
        }
        if (config.dbEnabledOverride() != null) {
            builder.featureFlag(config.dbEnabledOverride());
        }
        return builder;
    }

    private static void provisioning(SandboxPluginBuilder builder, ServerConfig config) {
        builder.images(config.defaultImages())
                .majorImages(config.majorImages())
                .network(config.network())
                .readyTimeout(config.readyTimeout())
                .maxLimits(config.maxLimits());
    }

    /** How sandboxes are started, from the configuration (the doctor checks it without a server). */
    static ProvisionSettings provisioning(ServerConfig config, String instanceId) {
        return ProvisionSettings.defaults(instanceId)
                .withImages(config.defaultImages())
                .withMajorImages(config.majorImages())
                .withNetwork(config.network())
                .withReadyTimeout(config.readyTimeout())
                .withMaxLimits(config.maxLimits())
                .withConcurrentStarts(config.lifecycle().starts().effectiveConcurrentStarts())
                .withStartQueue(
                        config.lifecycle().starts().perOwner(),
                        config.lifecycle().starts().maxWait());
    }

    private static void lifecycle(SandboxPluginBuilder builder, LifecycleConfig limits) {
        builder.lifetimes(limits.ttlDefault(), limits.ttlMax()).maxSandboxesPerOwner(limits.maxPerOwner());
        builder.concurrentStarts(limits.starts().effectiveConcurrentStarts())
                .startQueue(limits.starts().perOwner(), limits.starts().maxWait());
        if (limits.maxContainers() != null) {
            builder.maxContainers(limits.maxContainers());
        }
    }
}
