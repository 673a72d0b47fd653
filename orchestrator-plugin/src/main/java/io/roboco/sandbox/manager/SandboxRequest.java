package io.roboco.sandbox.manager;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.ServicePlan;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.template.TemplateStore;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One request for an agent's sandbox set, validated once, by the guard chain ({@link #validate}): every service
 * asked for is in the project's set, every service of the set is a registered engine, every feature (standing and
 * per call) is on its engine's allowlist and offered by the image of the project's major. Nothing can build one
 * otherwise, so the manager, the provisioner and the engines take it as it is and never re-check it.
 */
public final class SandboxRequest {
    private final String agent;
    private final Project project;
    private final List<String> asked;
    private final Map<String, ServicePlan> plans;

    SandboxRequest(String agent, Project project, List<String> asked, Map<String, ServicePlan> plans) {
        this.agent = agent;
        this.project = project;
        this.plans = Collections.unmodifiableMap(new LinkedHashMap<>(plans));
        this.asked = asked.isEmpty() ? List.copyOf(this.plans.keySet()) : List.copyOf(asked);
    }

    /** What {@link #validate} decided: the validated request, or why not (a refusal naming what is allowed). */
    public sealed interface Validation {
        record Valid(SandboxRequest request) implements Validation {}

        record Invalid(String reason) implements Validation {}
    }

    /**
     * The allowlist guard: {@code services} (null or empty: the whole set) and per-call {@code extensions} against
     * {@code project}'s set, the registry's allowlists and the images {@code images} chooses.
     */
    public static Validation validate(
            EngineRegistry registry,
            ProvisionSettings images,
            String agent,
            Project project,
            List<String> services,
            Map<String, List<String>> extensions) {
        return validate(registry, images, TemplateStore.none(), agent, project, services, extensions);
    }

    /**
     * {@link #validate(EngineRegistry, ProvisionSettings, String, Project, List, Map)} with the project's template seed
     * checked against {@code templates}: it exists, and restores into the major the project runs (the same or newer).
     */
    public static Validation validate(
            EngineRegistry registry,
            ProvisionSettings images,
            TemplateStore templates,
            String agent,
            Project project,
            List<String> services,
            Map<String, List<String>> extensions) {
        return new RequestChecks(registry, images, templates)
                .validate(
                        agent,
                        project,
                        services == null ? List.of() : services,
                        extensions == null ? Map.of() : extensions);
    }

    public String agent() {
        return agent;
    }

    public Project project() {
        return project;
    }

    public String projectId() {
        return project.id();
    }

    /** The services asked for, in the order asked (the whole set when none were named). */
    public List<String> asked() {
        return asked;
    }

    /** The project's whole set, in its order: what a first call provisions. */
    public List<String> services() {
        return List.copyOf(plans.keySet());
    }

    /** The plan of one service of the set (standing plus per-call features). */
    public ServicePlan plan(String service) {
        ServicePlan plan = plans.get(service);
        if (plan == null) {
            throw new IllegalStateException("service '" + service + "' is not in this request's set " + plans.keySet());
        }
        return plan;
    }

    public Collection<ServicePlan> plans() {
        return plans.values();
    }

    @Override
    public String toString() {
        return "SandboxRequest[" + agent + ", project " + project.id() + ", asked " + asked + ", plans "
                + plans.values() + "]";
    }
}
