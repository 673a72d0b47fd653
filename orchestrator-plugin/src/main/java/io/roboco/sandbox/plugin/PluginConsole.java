package io.roboco.sandbox.plugin;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.lifecycle.Lifetimes;
import io.roboco.sandbox.lifecycle.SandboxBook;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.provision.ImageChoice;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.AuditPage;
import io.roboco.sandbox.settings.AuditQuery;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.FlagStatus;
import io.roboco.sandbox.settings.FlagStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.ProjectForm;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.template.TemplateInfo;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The {@link OperatorConsole} of one plugin: a narrow view over its manager and store. */
final class PluginConsole implements OperatorConsole {
    private final SandboxPlugin plugin;

    PluginConsole(SandboxPlugin plugin) {
        this.plugin = plugin;
    }

    @Override
    public Limits limitDefaults() {
        return plugin.manager().provisioner().settings().limits();
    }

    @Override
    public Limits limitMaximums() {
        return plugin.manager().provisioner().settings().maxLimits();
    }

    @Override
    public EngineRegistry registry() {
        return plugin.registry();
    }

    @Override
    public ProjectForm.Check checkProject(String id, Map<String, Object> body) {
        return ProjectForm.check(
                id, body, plugin.registry(), plugin.manager().provisioner().settings(), plugin.templates());
    }

    @Override
    public Optional<ImageChoice> image(String engine, String major) {
        try {
            return plugin.registry()
                    .find(engine)
                    .map(e -> plugin.manager().provisioner().settings().choose(e, major));
        } catch (UnknownNameException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<TemplateInfo> templates(String project) {
        return plugin.templates().list(project);
    }

    @Override
    public List<AgentSandbox> liveSandboxes() {
        return plugin.manager().live();
    }

    @Override
    public Optional<AgentSandbox> sandbox(String agent) {
        return plugin.manager().find(agent);
    }

    @Override
    public List<Project> projects() {
        return plugin.store().allProjects();
    }

    @Override
    public Optional<Project> project(String id) {
        return plugin.store().findProject(id);
    }

    @Override
    public List<AuditRecord> audit(String agent, String decision, int limit) {
        return plugin.store().recent(agent, decision, limit);
    }

    @Override
    public AuditPage auditPage(AuditQuery query) {
        return plugin.store().page(query);
    }

    @Override
    public List<SandboxRecord> sandboxRecords(SandboxQuery query) {
        return plugin.sandboxes().map(s -> s.list(query)).orElse(List.of());
    }

    @Override
    public List<SandboxRecord> expiredSandboxes(String owner) {
        return plugin.sandboxes().map(s -> s.expired(owner)).orElse(List.of());
    }

    @Override
    public LifecycleLimits limits() {
        return plugin.sandboxes()
                .map(s -> {
                    SandboxBook book = s.book();
                    return new LifecycleLimits(
                            book.lifetimes().ttlDefault(),
                            book.lifetimes().ttlMax(),
                            book.perOwner(),
                            book.capacity().used(),
                            book.capacity().limited() ? book.capacity().max() : null);
                })
                .orElse(new LifecycleLimits(Lifetimes.DEFAULT_TTL, Lifetimes.DEFAULT_MAX, 0, 0, null));
    }

    @Override
    public SandboxRecord extend(String id, Duration ttl) {
        return plugin.sandboxes()
                .orElseThrow(() -> new Sandboxes.NotFound("this plugin keeps no sandbox records"))
                .extend(id, ttl);
    }

    @Override
    public boolean delete(String id) {
        Sandboxes sandboxes = plugin.sandboxes().orElse(null);
        if (sandboxes == null) {
            return false;
        }
        try {
            return sandboxes.delete(id, "deleted by an operator on the dashboard") == Sandboxes.Deletion.DELETED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public List<String> cleanup(String owner) {
        Sandboxes sandboxes = plugin.sandboxes().orElse(null);
        if (sandboxes == null) {
            return List.of();
        }
        try {
            return sandboxes.removeExpired(owner, Sandboxes.CLEANUP_VERB);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    @Override
    public List<String> agentSlugs() {
        return plugin.store().allAgents().stream().map(Agent::slug).toList();
    }

    @Override
    public FlagStatus flag(Boolean envOverride) {
        return FlagStatus.read(plugin.store(), plugin.flagEffective(), envOverride);
    }

    @Override
    public boolean flagEffective() {
        return plugin.flagEffective();
    }

    @Override
    public Map<String, Boolean> verify(String agent) {
        return plugin.manager().verify(agent);
    }

    @Override
    public int release(String agent, String verb) {
        return plugin.service()
                .release(SandboxService.Release.after(agent, verb))
                .removed();
    }

    @Override
    public void saveProject(Project project) {
        plugin.store().saveProject(project);
        plugin.primeSeededPools(project);
    }

    @Override
    public void storeFlag(boolean enabled) {
        plugin.store().storeFlag(FlagStore.SANDBOX_DB_ENABLED, enabled);
    }
}
