package io.roboco.sandbox.plugin;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.Project;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The guard chain of {@code request_sandbox}, in the contract's order. Guards 1-3 and 5 return the refusal
 * reason, or empty when the guard passes; guard 4 turns the call into a validated {@link SandboxRequest} or a
 * refusal. Messages say what is allowed and what to do.
 */
final class Guards {
    private final EngineRegistry registry;
    private final ProvisionSettings images;
    private final java.util.function.Supplier<io.roboco.sandbox.template.TemplateStore> templates;

    Guards(EngineRegistry registry, ProvisionSettings images) {
        this(registry, images, io.roboco.sandbox.template.TemplateStore::none);
    }

    Guards(EngineRegistry registry, ProvisionSettings images, java.util.function.Supplier<io.roboco.sandbox.template.TemplateStore> templates) {
        this.registry = registry;
        this.images = images;
        this.templates = templates;
    }

    /** 1. The feature flag. */
    static Optional<String> flag(boolean enabled) {
        return enabled ? Optional.empty()
                : Optional.of("sandboxes are disabled: feature flag ROBOCO_SANDBOX_DB_ENABLED is off; an admin can turn it on "
                + "(it takes effect on the next backend restart)");
    }

    /** 2. An active, project-bound task. */
    static Optional<String> activeTask(String slug, Optional<Agent> agent) {
        if (agent.isEmpty()) {
            return Optional.of("agent '" + slug + "' is not known to the orchestrator; it must be spawned and given work first");
        }
        if (!agent.get().hasActiveTask()) {
            return Optional.of("agent '" + slug + "' has no active, project-bound task; call give_me_work first");
        }
        return Optional.empty();
    }

    /** 3. The project opted into at least one service. */
    static Optional<String> optedIn(String projectId, Optional<Project> project) {
        if (project.isEmpty() || !project.get().optedIn()) {
            return Optional.of("project '" + projectId + "' has no sandbox_services; an operator can opt it in on the project's "
                    + "Sandbox settings card");
        }
        return Optional.empty();
    }

    /**
     * 4. Every service asked for inside the project's set, each service of the set a registered engine, every
     * feature (standing and per call) on its engine's allowlist and offered by the image of the project's major.
     * Valid, the request is the validated type everything after the guards takes.
     */
    SandboxRequest.Validation allowed(String slug, Project project, List<String> services, Map<String, List<String>> features) {
        return SandboxRequest.validate(registry, images, templates.get(), slug, project, services, features);
    }

    /** 5. The orchestrator handle is available. Retryable. */
    static Optional<String> handle(OrchestratorHandle handle) {
        OrchestratorHandle.State state = handle.state();
        return state == OrchestratorHandle.State.RUNNING ? Optional.empty()
                : Optional.of("the orchestrator is " + state.name().toLowerCase() + "; try again in a few seconds");
    }
}
