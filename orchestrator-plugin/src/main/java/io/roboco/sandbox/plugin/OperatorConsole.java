package io.roboco.sandbox.plugin;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.provision.ImageChoice;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.settings.AuditPage;
import io.roboco.sandbox.settings.AuditQuery;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.FlagStatus;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.ProjectForm;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.template.TemplateInfo;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What an operator's pages may see and do, and nothing more: reads of the live sandboxes, projects,
 * audit and the feature flag, plus the four operator actions the pages offer. The dashboard module
 * depends on this interface only; it never reaches into the manager, the store or the runtime.
 */
public interface OperatorConsole {

    EngineRegistry registry();

    /** A sandbox's caps when its project sets none (pages show them as each limit's default). */
    default Limits limitDefaults() {
        return Limits.sandboxDefaults();
    }

    /** The most a project's limits may be (the operator's {@code ROBOCO_SANDBOX_MAX_*}). */
    default Limits limitMaximums() {
        return Limits.operatorMaximums();
    }

    /**
     * The image a project's sandboxes of {@code engine} run at {@code major} (empty: the server's configured default
     * image), with the major it runs; empty when the engine or major is unknown.
     */
    default Optional<ImageChoice> image(String engine, String major) {
        return Optional.empty();
    }

    /**
     * The templates of project {@code project}: those saved from its sandboxes and the one its seed names, by name
     * (metadata only; empty when the plugin keeps no templates).
     */
    default List<TemplateInfo> templates(String project) {
        return List.of();
    }

    List<AgentSandbox> liveSandboxes();

    Optional<AgentSandbox> sandbox(String agent);

    List<Project> projects();

    Optional<Project> project(String id);

    /** Newest first; {@code agent} and {@code decision} are optional filters (null for all). */
    List<AuditRecord> audit(String agent, String decision, int limit);

    /** One page of the audit trail, by cursor. */
    AuditPage auditPage(AuditQuery query);

    /** Sandbox records matching {@code query}, oldest first (empty when the plugin keeps no records). */
    List<SandboxRecord> sandboxRecords(SandboxQuery query);

    /** This server's expired sandboxes (optionally one owner's): what a cleanup would remove. */
    List<SandboxRecord> expiredSandboxes(String owner);

    /** The resolved server limits and the capacity gauge, for the pages. */
    LifecycleLimits limits();

    /**
     * @param capacityMax null when no capacity is configured
     */
    record LifecycleLimits(
            Duration ttlDefault, Duration ttlMax, int maxPerOwner, int capacityUsed, Integer capacityMax) {}

    /** Every agent the store knows, for the audit filter. */
    List<String> agentSlugs();

    /** Stored vs effective feature flag; {@code envOverride} is the environment's value, or null. */
    FlagStatus flag(Boolean envOverride);

    boolean flagEffective();

    // --- actions -------------------------------------------------------------------------

    /** Re-verifies an agent's sandbox live, per service; empty when it has none. */
    Map<String, Boolean> verify(String agent);

    /** Tears an agent's sandbox down, audited under {@code verb}; the number of containers removed. */
    int release(String agent, String verb);

    /**
     * The validation of {@code PUT /api/projects/{id}} as a value, against this plugin's registry and images (so a
     * standing extension the project's major lacks is refused on the page as in the API).
     */
    ProjectForm.Check checkProject(String id, Map<String, Object> body);

    /** Saves an already validated project (see {@link #checkProject}). */
    void saveProject(Project project);

    /** Sets a live sandbox's expiry to now + {@code ttl} (see {@link Sandboxes#extend}). */
    SandboxRecord extend(String id, Duration ttl);

    /** Deletes one sandbox (its containers removed); false when it is unknown, already deleted, or another instance's. */
    boolean delete(String id);

    /** Removes this server's expired sandboxes now (optionally one owner's); the ids removed. */
    List<String> cleanup(String owner);

    /** Stores the feature flag; it takes effect at the next start. */
    void storeFlag(boolean enabled);
}
