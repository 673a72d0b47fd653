package io.roboco.sandbox.verbs;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.plugin.OrchestratorHandle;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.FakeSettingsStore;
import io.roboco.sandbox.testkit.StubEngine;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/** A plugin over testkit's fakes (stub engines, fake runtime, fake store); closes what it built. */
public final class VerbsFixture implements AutoCloseable {
    public final EngineRegistry registry = StubEngine.registry();
    public final FakeContainerRuntime runtime = new FakeContainerRuntime();
    public final FakeSettingsStore store = new FakeSettingsStore();
    public final SandboxPlugin plugin;
    public final AgentVerbs verbs;

    public VerbsFixture(boolean flagEffective) {
        this(flagEffective, OrchestratorHandle.running());
    }

    public VerbsFixture(boolean flagEffective, OrchestratorHandle handle) {
        Clock clock = Clock.systemUTC();
        ServiceProvisioner provisioner =
                new ServiceProvisioner(runtime, ProvisionSettings.defaults("test"), SecretSource.secure(), clock);
        plugin = new SandboxPlugin(
                registry, new SandboxManager(registry, provisioner, clock), store, flagEffective, handle, clock);
        verbs = new AgentVerbs(plugin, clock);
        store.saveProject(
                new Project("shop", "Shop", List.of("postgres", "redis"), Map.of("postgres", List.of("pg_trgm"))));
        store.saveProject(new Project("plain", "Plain", List.of(), Map.of()));
    }

    /** Spawns the agent and binds it to a task in {@code project}. */
    public void working(String slug, String role, String project) throws InterruptedException {
        verbs.spawn(slug, role, project);
        Envelope bound = verbs.call(slug, VerbNames.GIVE_ME_WORK, Map.of("project", project, "task", "T-1"));
        if (!bound.ok()) {
            throw new IllegalStateException("give_me_work failed: " + bound.asMap());
        }
    }

    @Override
    public void close() {
        plugin.close();
    }
}
