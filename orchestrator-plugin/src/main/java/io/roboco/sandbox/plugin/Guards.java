package io.roboco.sandbox.plugin;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.Printable;
import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.provision.ImageChoice;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.Project;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The guard chain of {@code request_sandbox}, in the contract's order. Each method returns the
 * refusal reason, or empty when the guard passes. Messages say what is allowed and what to do.
 */
final class Guards {
    private final EngineRegistry registry;
    private final ProvisionSettings images;

    Guards(EngineRegistry registry, ProvisionSettings images) {
        this.registry = registry;
        this.images = images;
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

    /** 4. Every service inside the project's set; every feature on its engine's allowlist. */
    Optional<String> allowed(Project project, List<String> services, Map<String, List<String>> features) {
        String allowedServices = String.join(", ", project.services());
        for (String service : services) {
            if (!project.services().contains(service)) {
                return Optional.of("service '" + Printable.of(service) + "' is not in project '" + project.id()
                        + "''s sandbox set; allowed: " + allowedServices);
            }
        }
        for (Map.Entry<String, List<String>> entry : features.entrySet()) {
            String service = entry.getKey();
            if (!project.services().contains(service)) {
                return Optional.of("extensions given for service '" + Printable.of(service) + "', which is not in project '"
                        + project.id() + "''s sandbox set; allowed: " + allowedServices);
            }
            Engine engine = registry.require(service);
            for (String feature : entry.getValue()) {
                if (feature == null || !engine.features().contains(feature)) {
                    String allowed = engine.features().isEmpty() ? "none" : String.join(", ", new TreeSet<>(engine.features()));
                    return Optional.of(service + " " + featureWord(engine) + " '" + Printable.of(feature) + "' is not allowed; allowed: " + allowed);
                }
            }
        }
        return offered(project, features);
    }

    /**
     * 4, continued. The image of the project's major for each service offers every feature asked for (per call and
     * standing): an allowlisted feature the image lacks is refused before anything starts, naming the majors whose
     * images offer it.
     */
    Optional<String> offered(Project project, Map<String, List<String>> perCall) {
        for (String service : project.services()) {
            Engine engine = registry.find(service).orElse(null);
            if (engine == null) {
                continue;
            }
            ImageChoice choice;
            try {
                choice = images.choose(engine, project.versionFor(service));
            } catch (UnknownNameException e) {
                return Optional.of("project '" + project.id() + "''s sandbox_versions: " + e.getMessage());
            }
            Set<String> wanted = new TreeSet<>(project.extensionsFor(service));
            wanted.addAll(perCall.getOrDefault(service, List.of()));
            for (String feature : wanted) {
                if (engine.features().contains(feature) && !choice.features().contains(feature)) {
                    return Optional.of(notOffered(engine, choice, feature));
                }
            }
        }
        return Optional.empty();
    }

    private String notOffered(Engine engine, ImageChoice choice, String feature) {
        List<String> majors = images.majorsOffering(engine, feature);
        String where = choice.major().isEmpty() ? "the server's " + engine.name() + " image " + choice.image()
                : engine.displayName() + " " + choice.major() + " (image " + choice.image() + ")";
        String fix = majors.isEmpty() ? "no configured " + engine.name() + " major offers it; an operator can configure an image that ships it"
                : "offered by " + engine.name() + " " + String.join(", ", majors) + "; set the project's sandbox_versions to {\""
                + engine.name() + "\":\"" + majors.get(majors.size() - 1) + "\"}";
        return engine.name() + " " + featureWord(engine) + " '" + feature + "' is not available in " + where + "; " + fix;
    }

    /** 5. The orchestrator handle is available. Retryable. */
    static Optional<String> handle(OrchestratorHandle handle) {
        OrchestratorHandle.State state = handle.state();
        return state == OrchestratorHandle.State.RUNNING ? Optional.empty()
                : Optional.of("the orchestrator is " + state.name().toLowerCase() + "; try again in a few seconds");
    }

    private static String featureWord(Engine engine) {
        return "available_modules".equals(engine.featuresKey()) ? "module" : "extension";
    }

}
